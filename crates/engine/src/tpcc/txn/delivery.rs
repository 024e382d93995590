//! Delivery (TPC-C 2.7): tpcc_run.lua's `delivery()`, all ten districts in one transaction.

use super::{Outcome, Session, Shape};
use crate::results::QueryKind::Write;
use crate::tpcc::options::DISTRICTS_PER_WAREHOUSE;
use crate::workload::rand::SbRand;

pub(super) fn run(
    s: &mut Session,
    rng: &mut SbRand,
    shape: Shape,
) -> Result<Outcome, mysql::Error> {
    let (t, w_id) = shape.table_and_warehouse(rng);
    let carrier = rng.uniform(1, 10);

    s.begin()?;
    for d_id in 1..=DISTRICTS_PER_WAREHOUSE {
        let oldest: Option<u64> = s.row(format_args!(
            "SELECT no_o_id FROM new_orders{t} WHERE no_d_id = {d_id} AND no_w_id = {w_id} \
             ORDER BY no_o_id ASC LIMIT 1 FOR UPDATE"
        ))?;
        let Some(o_id) = oldest else { continue };
        s.exec(
            Write,
            format_args!(
                "DELETE FROM new_orders{t} WHERE no_o_id = {o_id} AND no_d_id = {d_id} AND no_w_id = {w_id}"
            ),
        )?;
        let c_id: u64 = s
            .row(format_args!(
                "SELECT o_c_id FROM orders{t} WHERE o_id = {o_id} AND o_d_id = {d_id} AND o_w_id = {w_id}"
            ))?
            .unwrap_or(0);
        s.exec(
            Write,
            format_args!(
                "UPDATE orders{t} SET o_carrier_id = {carrier} WHERE o_id = {o_id} AND o_d_id = {d_id} AND o_w_id = {w_id}"
            ),
        )?;
        s.exec(
            Write,
            format_args!(
                "UPDATE order_line{t} SET ol_delivery_d = NOW() WHERE ol_o_id = {o_id} AND ol_d_id = {d_id} AND ol_w_id = {w_id}"
            ),
        )?;
        let total: Option<f64> = s
            .row::<Option<f64>>(format_args!(
                "SELECT SUM(ol_amount) sm FROM order_line{t} WHERE ol_o_id = {o_id} AND ol_d_id = {d_id} AND ol_w_id = {w_id}"
            ))?
            .flatten();
        let total = total.unwrap_or(0.0);
        s.exec(
            Write,
            format_args!(
                "UPDATE customer{t} SET c_balance = c_balance + {total:.6}, c_delivery_cnt = c_delivery_cnt + 1 \
                 WHERE c_id = {c_id} AND c_d_id = {d_id} AND c_w_id = {w_id}"
            ),
        )?;
    }
    s.commit()?;
    Ok(Outcome::Committed)
}
