//! Purge (`--enable_purge`): tpcc_run.lua's `purge()`, ten small transactions that delete
//! an old order of a customer with several, to keep the data from growing.

use super::{Outcome, Session, Shape};
use crate::results::QueryKind::Write;
use crate::tpcc::options::DISTRICTS_PER_WAREHOUSE;
use crate::workload::rand::SbRand;

/// Orders up to this id come from the load; the purge leaves them alone.
const LOADED_ORDERS: u64 = 2100;

pub(super) fn run(
    s: &mut Session,
    rng: &mut SbRand,
    shape: Shape,
) -> Result<Outcome, mysql::Error> {
    for _ in 0..10 {
        let (t, w_id) = shape.table_and_warehouse(rng);
        let d_id = rng.uniform(1, DISTRICTS_PER_WAREHOUSE as u64);
        s.begin()?;
        let min_new: Option<u64> = s
            .row::<Option<u64>>(format_args!(
                "SELECT min(no_o_id) mo FROM new_orders{t} WHERE no_w_id = {w_id} AND no_d_id = {d_id}"
            ))?
            .flatten();
        if let Some(m_o_id) = min_new {
            let victim: Option<u64> = s.row(format_args!(
                "SELECT o_id FROM orders{t} o, (SELECT o_c_id,o_w_id,o_d_id,count(distinct o_id) FROM orders{t} \
                 WHERE o_w_id={w_id} AND o_d_id={d_id} AND o_id > {LOADED_ORDERS} AND o_id < {m_o_id} \
                 GROUP BY o_c_id,o_d_id,o_w_id having count( distinct o_id) > 1 limit 1) t \
                 WHERE t.o_w_id=o.o_w_id and t.o_d_id=o.o_d_id and t.o_c_id=o.o_c_id limit 1"
            ))?;
            if let Some(o_id) = victim {
                s.exec(
                    Write,
                    format_args!(
                        "DELETE FROM order_line{t} where ol_w_id={w_id} AND ol_d_id={d_id} AND ol_o_id={o_id}"
                    ),
                )?;
                s.exec(
                    Write,
                    format_args!(
                        "DELETE FROM orders{t} where o_w_id={w_id} AND o_d_id={d_id} and o_id={o_id}"
                    ),
                )?;
                s.exec(
                    Write,
                    format_args!(
                        "DELETE FROM history{t} where h_w_id={w_id} AND h_d_id={d_id} LIMIT 10"
                    ),
                )?;
            }
        }
        s.commit()?;
    }
    Ok(Outcome::Committed)
}
