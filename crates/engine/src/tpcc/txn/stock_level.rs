//! Stock-Level (TPC-C 2.8): tpcc_run.lua's `stocklevel()`, its "case1" (the specification's join).

use super::{Outcome, Session, Shape};
use crate::tpcc::options::DISTRICTS_PER_WAREHOUSE;
use crate::workload::rand::SbRand;

pub(super) fn run(
    s: &mut Session,
    rng: &mut SbRand,
    shape: Shape,
) -> Result<Outcome, mysql::Error> {
    let (t, w_id) = shape.table_and_warehouse(rng);
    let d_id = rng.uniform(1, DISTRICTS_PER_WAREHOUSE as u64);
    let level = rng.uniform(10, 20);

    s.begin()?;
    let next: i64 = s
        .row(format_args!(
            "SELECT d_next_o_id FROM district{t} WHERE d_id = {d_id} AND d_w_id= {w_id}"
        ))?
        .unwrap_or(0);
    let low = next - 20;
    s.row::<mysql::Row>(format_args!(
        "SELECT COUNT(DISTINCT (s_i_id)) FROM order_line{t}, stock{t} \
         WHERE ol_w_id = {w_id} AND ol_d_id = {d_id} AND ol_o_id < {next} AND ol_o_id >= {low} \
         AND s_w_id= {w_id} AND s_i_id=ol_i_id AND s_quantity < {level}"
    ))?;
    s.commit()?;
    Ok(Outcome::Committed)
}
