//! Order-Status (TPC-C 2.6): tpcc_run.lua's `orderstatus()`.

use super::{middle_customer_index, Outcome, Session, Shape};
use crate::tpcc::options::{CUSTOMERS_PER_DISTRICT, DISTRICTS_PER_WAREHOUSE};
use crate::tpcc::random::{nurand, random_last_name};
use crate::workload::rand::SbRand;

pub(super) fn run(
    s: &mut Session,
    rng: &mut SbRand,
    shape: Shape,
    c_last: &mut String,
) -> Result<Outcome, mysql::Error> {
    let (t, w_id) = shape.table_and_warehouse(rng);
    let d_id = rng.uniform(1, DISTRICTS_PER_WAREHOUSE as u64);
    let mut c_id = nurand(rng, 1023, 1, CUSTOMERS_PER_DISTRICT as u64);
    random_last_name(rng, c_last);
    let by_name = rng.uniform(1, 100) <= 60;

    s.begin()?;
    if by_name {
        let count: u64 = s
            .row(format_args!(
                "SELECT count(c_id) namecnt FROM customer{t} WHERE c_w_id = {w_id} AND c_d_id= {d_id} AND c_last='{c_last}'"
            ))?
            .unwrap_or(0);
        let rows: Vec<mysql::Row> = s.rows(format_args!(
            "SELECT c_balance, c_first, c_middle, c_id FROM customer{t} \
             WHERE c_w_id = {w_id} AND c_d_id= {d_id} AND c_last='{c_last}' ORDER BY c_first"
        ))?;
        if !rows.is_empty() {
            let row = &rows[middle_customer_index(count, rows.len())];
            c_id = row.get_opt(3).and_then(Result::ok).unwrap_or(c_id);
        }
    } else {
        s.row::<mysql::Row>(format_args!(
            "SELECT c_balance, c_first, c_middle, c_last FROM customer{t} \
             WHERE c_w_id = {w_id} AND c_d_id={d_id} AND c_id={c_id}"
        ))?;
    }
    let o_id: u64 = s
        .row::<mysql::Row>(format_args!(
            "SELECT o_id, o_carrier_id, o_entry_d FROM orders{t} \
             WHERE o_w_id = {w_id} AND o_d_id = {d_id} AND o_c_id = {c_id} ORDER BY o_id DESC"
        ))?
        .and_then(|r| r.get_opt(0).and_then(Result::ok))
        .unwrap_or(0);
    // The reference's format string has one placeholder fewer than its arguments, so
    // its order-line lookup asks for `ol_o_id = d_id` and the last order's id is never
    // used. Sent the same way: the server must do the reference's work.
    let _ = o_id;
    s.rows::<mysql::Row>(format_args!(
        "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line{t} \
         WHERE ol_w_id = {w_id} AND ol_d_id = {d_id}  AND ol_o_id = {d_id}"
    ))?;
    s.commit()?;
    Ok(Outcome::Committed)
}
