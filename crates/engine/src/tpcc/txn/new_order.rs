//! New-Order (TPC-C 2.4): tpcc_run.lua's `new_order()`.

use super::{Outcome, Session, Shape};
use crate::results::QueryKind::Write;
use crate::tpcc::options::{CUSTOMERS_PER_DISTRICT, DISTRICTS_PER_WAREHOUSE, MAX_ITEMS};
use crate::tpcc::random::{nurand, other_warehouse};
use crate::workload::rand::SbRand;

/// Order lines are 5 to 15; the arrays live on the stack.
const MAX_LINES: usize = 15;

/// One order line's draws, made before the transaction starts, as in the reference.
#[derive(Clone, Copy, Default)]
struct Line {
    /// -1: the unused item of the 1% that roll back.
    item: i64,
    supply_w_id: u64,
    quantity: u64,
}

pub(super) fn run(
    s: &mut Session,
    rng: &mut SbRand,
    shape: Shape,
) -> Result<Outcome, mysql::Error> {
    let (t, w_id) = shape.table_and_warehouse(rng);
    let d_id = rng.uniform(1, DISTRICTS_PER_WAREHOUSE as u64);
    let c_id = nurand(rng, 1023, 1, CUSTOMERS_PER_DISTRICT as u64);
    let ol_cnt = rng.uniform(5, 15) as usize;
    let rollback = rng.uniform(1, 100) == 1;
    let mut lines = [Line::default(); MAX_LINES];
    let mut all_local = 1;
    for (i, line) in lines.iter_mut().enumerate().take(ol_cnt) {
        line.item = nurand(rng, 8191, 1, MAX_ITEMS as u64) as i64;
        // The reference marks the next-to-last line (its `i == ol_cnt - 1`, 1-based).
        if rollback && i + 2 == ol_cnt {
            line.item = -1;
        }
        line.supply_w_id = if rng.uniform(1, 100) != 1 {
            w_id
        } else {
            all_local = 0;
            other_warehouse(rng, w_id, shape.scale)
        };
        line.quantity = rng.uniform(1, 10);
    }

    s.begin()?;
    let (c_discount, _c_last, _c_credit, w_tax): (f64, String, String, f64) = s
        .row(format_args!(
            "SELECT c_discount, c_last, c_credit, w_tax FROM customer{t}, warehouse{t} \
             WHERE w_id = {w_id} AND c_w_id = w_id AND c_d_id = {d_id} AND c_id = {c_id}"
        ))?
        .unwrap_or_default();
    let (d_next_o_id, d_tax): (u64, f64) = s
        .row(format_args!(
            "SELECT d_next_o_id, d_tax FROM district{t} WHERE d_w_id = {w_id} AND d_id = {d_id} FOR UPDATE"
        ))?
        .unwrap_or_default();
    s.exec(
        Write,
        format_args!(
            "UPDATE district{t} SET d_next_o_id = {} WHERE d_id = {d_id} AND d_w_id= {w_id}",
            d_next_o_id + 1
        ),
    )?;
    let o_id = d_next_o_id;
    s.exec(
        Write,
        format_args!(
            "INSERT INTO orders{t} (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local) \
             VALUES ({o_id},{d_id},{w_id},{c_id},NOW(),{ol_cnt},{all_local})"
        ),
    )?;
    s.exec(
        Write,
        format_args!(
            "INSERT INTO new_orders{t} (no_o_id, no_d_id, no_w_id) VALUES ({o_id},{d_id},{w_id})"
        ),
    )?;
    for (n, line) in lines.iter().take(ol_cnt).enumerate() {
        let ol_number = n + 1;
        let item = line.item;
        let item_row: Option<(f64, String, String)> = s.row(format_args!(
            "SELECT i_price, i_name, i_data FROM item{t} WHERE i_id = {item}"
        ))?;
        let Some((i_price, _, _)) = item_row else {
            s.rollback()?;
            return Ok(Outcome::RolledBack);
        };
        let supply = line.supply_w_id;
        let (s_quantity, _s_data, dist_info): (i64, String, String) = s
            .row(format_args!(
                "SELECT s_quantity, s_data, s_dist_{d_id:02} s_dist FROM stock{t} \
                 WHERE s_i_id = {item} AND s_w_id= {supply} FOR UPDATE"
            ))?
            .unwrap_or_default();
        let qty = line.quantity as i64;
        let s_quantity = if s_quantity > qty {
            s_quantity - qty
        } else {
            s_quantity - qty + 91
        };
        s.exec(
            Write,
            format_args!(
                "UPDATE stock{t} SET s_quantity = {s_quantity} WHERE s_i_id = {item} AND s_w_id= {supply}"
            ),
        )?;
        // The reference formats the amount with %d: LuaJIT truncates it to an integer.
        let amount = (qty as f64 * i_price * (1.0 + w_tax + d_tax) * (1.0 - c_discount)) as i64;
        let mut quoted = String::with_capacity(dist_info.len() + 2);
        super::push_escaped(&mut quoted, &dist_info);
        s.exec(
            Write,
            format_args!(
                "INSERT INTO order_line{t} (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info) \
                 VALUES ({o_id},{d_id},{w_id},{ol_number},{item},{supply},{qty},{amount},'{quoted}')"
            ),
        )?;
    }
    s.commit()?;
    Ok(Outcome::Committed)
}
