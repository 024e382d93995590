//! Payment (TPC-C 2.5): tpcc_run.lua's `payment()`.

use std::fmt::Write as _;

use super::{middle_customer_index, push_escaped, Outcome, Session, Shape};
use crate::results::QueryKind::Write;
use crate::tpcc::options::{CUSTOMERS_PER_DISTRICT, DISTRICTS_PER_WAREHOUSE};
use crate::tpcc::random::{nurand, other_warehouse, random_last_name};
use crate::workload::rand::SbRand;

/// `c_data` is VARCHAR(500): the reference cuts the new value there.
const C_DATA_MAX: usize = 500;

/// The name column of a warehouse or district row (the sixth column read).
fn name_of(row: Option<mysql::Row>) -> String {
    row.and_then(|r| r.get_opt(5).and_then(Result::ok))
        .unwrap_or_default()
}

pub(super) fn run(
    s: &mut Session,
    rng: &mut SbRand,
    shape: Shape,
    c_last: &mut String,
) -> Result<Outcome, mysql::Error> {
    let (t, w_id) = shape.table_and_warehouse(rng);
    let d_dist = DISTRICTS_PER_WAREHOUSE as u64;
    let d_id = rng.uniform(1, d_dist);
    let mut c_id = nurand(rng, 1023, 1, CUSTOMERS_PER_DISTRICT as u64);
    let h_amount = rng.uniform(1, 5000);
    random_last_name(rng, c_last);
    let by_name = rng.uniform(1, 100) <= 60;
    let (c_w_id, c_d_id) = if rng.uniform(1, 100) <= 85 {
        (w_id, d_id)
    } else {
        let c_w_id = other_warehouse(rng, w_id, shape.scale);
        (c_w_id, rng.uniform(1, d_dist))
    };

    s.begin()?;
    s.exec(
        Write,
        format_args!("UPDATE warehouse{t} SET w_ytd = w_ytd + {h_amount} WHERE w_id = {w_id}"),
    )?;
    let w_name = name_of(s.row(format_args!(
            "SELECT w_street_1, w_street_2, w_city, w_state, w_zip, w_name FROM warehouse{t} WHERE w_id = {w_id}"
    ))?);
    s.exec(
        Write,
        format_args!(
            "UPDATE district{t} SET d_ytd = d_ytd + {h_amount} WHERE d_w_id = {w_id} AND d_id= {d_id}"
        ),
    )?;
    let d_name = name_of(s.row(format_args!(
        "SELECT d_street_1, d_street_2, d_city, d_state, d_zip, d_name FROM district{t} \
             WHERE d_w_id = {w_id} AND d_id = {d_id}"
    ))?);
    if by_name {
        let count: u64 = s
            .row(format_args!(
                "SELECT count(c_id) namecnt FROM customer{t} WHERE c_w_id = {c_w_id} AND c_d_id= {c_d_id} AND c_last='{c_last}'"
            ))?
            .unwrap_or(0);
        let ids: Vec<u64> = s.rows(format_args!(
            "SELECT c_id FROM customer{t} WHERE c_w_id = {c_w_id} AND c_d_id= {c_d_id} AND c_last='{c_last}' ORDER BY c_first"
        ))?;
        if !ids.is_empty() {
            c_id = ids[middle_customer_index(count, ids.len())];
        }
    }
    // Every column is read, as the reference reads them; the credit, the balance and
    // the YTD payment are the ones used.
    let customer: Option<mysql::Row> = s.row(format_args!(
        "SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, \
         c_credit, c_credit_lim, c_discount, c_balance, c_ytd_payment, c_since FROM customer{t} \
         WHERE c_w_id = {c_w_id} AND c_d_id= {c_d_id} AND c_id={c_id} FOR UPDATE"
    ))?;
    let (credit, balance, ytd) = customer
        .map(|row| {
            let credit: String = row.get_opt(9).and_then(Result::ok).unwrap_or_default();
            let balance: f64 = row.get_opt(12).and_then(Result::ok).unwrap_or_default();
            let ytd: f64 = row.get_opt(13).and_then(Result::ok).unwrap_or_default();
            (credit, balance, ytd)
        })
        .unwrap_or_default();
    let c_balance = balance - h_amount as f64;
    let c_ytd_payment = ytd + h_amount as f64;
    if credit == "BC" {
        let c_data: String = s
            .row(format_args!(
                "SELECT c_data FROM customer{t} WHERE c_w_id = {c_w_id} AND c_d_id={c_d_id} AND c_id= {c_id}"
            ))?
            .unwrap_or_default();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let mut new_data = String::with_capacity(C_DATA_MAX + 64);
        let _ = write!(
            new_data,
            "| {c_id:4} {c_d_id:2} {c_w_id:4} {d_id:2} {w_id:4} ${:7.2} {now:>12} {c_data:>24}",
            h_amount as f64
        );
        truncate_chars(&mut new_data, C_DATA_MAX);
        let mut quoted = String::with_capacity(new_data.len() + 8);
        push_escaped(&mut quoted, &new_data);
        s.exec(
            Write,
            format_args!(
                "UPDATE customer{t} SET c_balance={c_balance:.6}, c_ytd_payment={c_ytd_payment:.6}, c_data='{quoted}' \
                 WHERE c_w_id = {c_w_id} AND c_d_id={c_d_id} AND c_id={c_id}"
            ),
        )?;
    } else {
        s.exec(
            Write,
            format_args!(
                "UPDATE customer{t} SET c_balance={c_balance:.6}, c_ytd_payment={c_ytd_payment:.6} \
                 WHERE c_w_id = {c_w_id} AND c_d_id={c_d_id} AND c_id={c_id}"
            ),
        )?;
    }
    let mut h_data = String::with_capacity(32);
    let _ = write!(h_data, "{:>10} {:>10}   ", w_name, d_name);
    let mut quoted = String::with_capacity(h_data.len() + 4);
    push_escaped(&mut quoted, &h_data);
    s.exec(
        Write,
        format_args!(
            "INSERT INTO history{t} (h_c_d_id, h_c_w_id, h_c_id, h_d_id, h_w_id, h_date, h_amount, h_data) \
             VALUES ({c_d_id},{c_w_id},{c_id},{d_id},{w_id},NOW(),{h_amount},'{quoted}')"
        ),
    )?;
    s.commit()?;
    Ok(Outcome::Committed)
}

fn truncate_chars(s: &mut String, max: usize) {
    if let Some((cut, _)) = s.char_indices().nth(max) {
        s.truncate(cut);
    }
}
