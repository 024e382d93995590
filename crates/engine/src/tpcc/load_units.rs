//! The load cut into units of work, and the rows each unit writes, by tpcc_common.lua's
//! rules (`load_tables` and the item load of `create_tables`).
//!
//! The reference loads one warehouse per thread, all its tables in turn; here each
//! warehouse is cut into units (stock in chunks, customers and orders per district)
//! that any thread may take, so the load is parallel across warehouses, across tables
//! and within a warehouse. What must agree across units is drawn when the units are
//! planned: each warehouse's permutation of customers over orders, and each order's
//! line count (orders and order_line must agree on it).

use std::sync::Arc;

use super::options::{CUSTOMERS_PER_DISTRICT, DISTRICTS_PER_WAREHOUSE, MAX_ITEMS};
use super::random::last_name;
use super::rows::{RowBuf, RowRng};

/// Items and stock rows per unit.
const CHUNK_ROWS: u32 = 20_000;
/// Orders per district; the last 900 are undelivered (new orders).
const ORDERS_PER_DISTRICT: u32 = 3_000;
const FIRST_NEW_ORDER: u32 = 2_101;

#[derive(Debug, Clone)]
pub enum Unit {
    Items {
        set: u32,
        first: u32,
        last: u32,
    },
    /// The warehouse row and its ten districts.
    Warehouse {
        set: u32,
        w: u32,
    },
    Stock {
        set: u32,
        w: u32,
        first: u32,
        last: u32,
    },
    /// A district's customers and their history rows.
    Customers {
        set: u32,
        w: u32,
        d: u32,
    },
    /// A district's orders, new orders and order lines.
    Orders {
        set: u32,
        w: u32,
        d: u32,
        /// The customer of order `o_id` at `o_id - 1` (shared by the warehouse's districts).
        customer_of_order: Arc<Vec<u16>>,
        /// Each order's line count, 5..=15.
        lines: Vec<u8>,
    },
}

impl Unit {
    /// The set of tables the unit fills.
    pub fn set(&self) -> u32 {
        match self {
            Unit::Items { set, .. }
            | Unit::Warehouse { set, .. }
            | Unit::Stock { set, .. }
            | Unit::Customers { set, .. }
            | Unit::Orders { set, .. } => *set,
        }
    }

    /// (set, warehouse, district or first item): sorting a table's units by it sorts
    /// the table's rows by its primary key (`load_tables`).
    pub fn key_order(&self) -> (u32, u32, u32) {
        match *self {
            Unit::Items { set, first, .. } => (set, 0, first),
            Unit::Warehouse { set, w } => (set, w, 0),
            Unit::Stock { set, w, first, .. } => (set, w, first),
            Unit::Customers { set, w, d } | Unit::Orders { set, w, d, .. } => (set, w, d),
        }
    }

    /// Rows the unit loads, for the progress count.
    pub fn rows(&self) -> u64 {
        match self {
            Unit::Items { first, last, .. } | Unit::Stock { first, last, .. } => {
                (last - first + 1) as u64
            }
            Unit::Warehouse { .. } => 1 + DISTRICTS_PER_WAREHOUSE as u64,
            Unit::Customers { .. } => 2 * CUSTOMERS_PER_DISTRICT as u64,
            Unit::Orders { lines, .. } => {
                let new_orders = (ORDERS_PER_DISTRICT - FIRST_NEW_ORDER + 1) as u64;
                ORDERS_PER_DISTRICT as u64
                    + new_orders
                    + lines.iter().map(|&l| l as u64).sum::<u64>()
            }
        }
    }
}

/// Every unit of a prepare, in the order threads should take them: the item tables
/// first, then the warehouses' units round-robin, so that threads working at the same
/// time work on different warehouses (fewer hot index pages), biggest units first.
pub fn plan(sets: u32, warehouses: u32, rng: &mut RowRng) -> Vec<Unit> {
    let mut units = Vec::new();
    for set in 1..=sets {
        units.extend(chunks(MAX_ITEMS).map(|(first, last)| Unit::Items { set, first, last }));
    }
    let mut per_warehouse: Vec<Vec<Unit>> = Vec::new();
    for set in 1..=sets {
        for w in 1..=warehouses {
            let mut mine: Vec<Unit> = chunks(MAX_ITEMS)
                .map(|(first, last)| Unit::Stock {
                    set,
                    w,
                    first,
                    last,
                })
                .collect();
            let mut customers: Vec<u16> = (1..=ORDERS_PER_DISTRICT as u16).collect();
            rng.shuffle(&mut customers);
            let customer_of_order = Arc::new(customers);
            for d in 1..=DISTRICTS_PER_WAREHOUSE {
                let lines = (0..ORDERS_PER_DISTRICT)
                    .map(|_| rng.uniform(5, 15) as u8)
                    .collect();
                mine.push(Unit::Orders {
                    set,
                    w,
                    d,
                    customer_of_order: Arc::clone(&customer_of_order),
                    lines,
                });
            }
            mine.extend((1..=DISTRICTS_PER_WAREHOUSE).map(|d| Unit::Customers { set, w, d }));
            mine.push(Unit::Warehouse { set, w });
            per_warehouse.push(mine);
        }
    }
    let longest = per_warehouse.iter().map(Vec::len).max().unwrap_or(0);
    for i in 0..longest {
        units.extend(per_warehouse.iter().filter_map(|v| v.get(i).cloned()));
    }
    units
}

fn chunks(rows: u32) -> impl Iterator<Item = (u32, u32)> {
    (0..rows.div_ceil(CHUNK_ROWS)).map(move |i| {
        let first = i * CHUNK_ROWS + 1;
        (first, (first + CHUNK_ROWS - 1).min(rows))
    })
}

/// Writes a table's rows of one unit: (buffer, random source, the server's `NOW()`).
pub type WriteRows<'u> = Box<dyn Fn(&mut RowBuf, &mut RowRng, &str) + 'u>;

/// One table's part of a unit: where its rows go, and how to write them.
pub struct TableRows<'u> {
    /// The table without its set number (`order_line`).
    pub table: &'static str,
    pub set: u32,
    /// The columns the rows fill, in order.
    pub columns: &'static str,
    pub write: WriteRows<'u>,
}

impl Unit {
    /// The tables this unit fills, each with its row writer. A writer may be called
    /// again (when LOAD DATA is refused, the rows are written anew as INSERT tuples);
    /// `now` is the server's `NOW()`, which the reference stores in date columns.
    pub fn tables(&self) -> Vec<TableRows<'_>> {
        match self {
            &Unit::Items { set, first, last } => vec![TableRows {
                table: "item",
                set,
                columns: "i_id, i_im_id, i_name, i_price, i_data",
                write: Box::new(move |b, rng, _| items(b, rng, first, last)),
            }],
            &Unit::Warehouse { set, w } => vec![
                TableRows {
                    table: "warehouse",
                    set,
                    columns: "w_id, w_name, w_street_1, w_street_2, w_city, w_state, w_zip, w_tax, w_ytd",
                    write: Box::new(move |b, rng, _| warehouse(b, rng, w)),
                },
                TableRows {
                    table: "district",
                    set,
                    columns: "d_id, d_w_id, d_name, d_street_1, d_street_2, d_city, d_state, d_zip, d_tax, d_ytd, d_next_o_id",
                    write: Box::new(move |b, rng, _| districts(b, rng, w)),
                },
            ],
            &Unit::Stock {
                set,
                w,
                first,
                last,
            } => vec![TableRows {
                table: "stock",
                set,
                columns: "s_i_id, s_w_id, s_quantity, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10, s_ytd, s_order_cnt, s_remote_cnt, s_data",
                write: Box::new(move |b, rng, _| stock(b, rng, w, first, last)),
            }],
            &Unit::Customers { set, w, d } => vec![
                TableRows {
                    table: "customer",
                    set,
                    columns: "c_id, c_d_id, c_w_id, c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance, c_ytd_payment, c_payment_cnt, c_delivery_cnt, c_data",
                    write: Box::new(move |b, rng, now| customers(b, rng, w, d, now)),
                },
                TableRows {
                    table: "history",
                    set,
                    columns: "h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data",
                    write: Box::new(move |b, rng, now| history(b, rng, w, d, now)),
                },
            ],
            Unit::Orders {
                set,
                w,
                d,
                customer_of_order,
                lines,
            } => {
                let (set, w, d) = (*set, *w, *d);
                vec![
                    TableRows {
                        table: "orders",
                        set,
                        columns: "o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local",
                        write: Box::new(move |b, rng, now| {
                            orders(b, rng, w, d, customer_of_order, lines, now)
                        }),
                    },
                    TableRows {
                        table: "new_orders",
                        set,
                        columns: "no_o_id, no_d_id, no_w_id",
                        write: Box::new(move |b, _, _| new_orders(b, w, d)),
                    },
                    TableRows {
                        table: "order_line",
                        set,
                        columns: "ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info",
                        write: Box::new(move |b, rng, now| order_lines(b, rng, w, d, lines, now)),
                    },
                ]
            }
        }
    }
}

/// `item`: the name and data are not the specification's but the reference's (it
/// says: for better compression), cut to the columns' widths.
fn items(b: &mut RowBuf, rng: &mut RowRng, first: u32, last: u32) {
    let mut name = String::with_capacity(32);
    let mut data = String::with_capacity(64);
    let mut letters = String::with_capacity(8);
    for i in first..=last {
        let im_id = rng.uniform(1, 10_000);
        let price = rng.uniform_double() * 100.0 + 1.0;
        five_letters(rng, &mut letters);
        name.clear();
        use std::fmt::Write as _;
        let _ = write!(name, "item-{im_id}-{price:.6}-{letters}");
        five_letters(rng, &mut letters);
        data.clear();
        let _ = write!(data, "data-{name}-{letters}");
        b.int(i as i64)
            .int(im_id as i64)
            .text(cut(&name, 24))
            .decimal(price)
            .text(cut(&data, 50))
            .end_row();
    }
}

/// `sysbench.rand.string("@@@@@")`.
fn five_letters(rng: &mut RowRng, out: &mut String) {
    out.clear();
    for _ in 0..5 {
        out.push(rng.letter() as char);
    }
}

fn cut(s: &str, n: usize) -> &str {
    &s[..s.len().min(n)]
}

/// The address and tax columns warehouse and district share.
fn address_and_tax(b: &mut RowBuf, rng: &mut RowRng) {
    b.template(rng, "name-@@@@@")
        .template(rng, "street1-@@@@@@@@@@")
        .template(rng, "street2-@@@@@@@@@@")
        .template(rng, "city-@@@@@@@@@@")
        .template(rng, "@@")
        .template(rng, "zip-#####");
    let tax = rng.uniform_double() * 0.2;
    b.decimal(tax);
}

fn warehouse(b: &mut RowBuf, rng: &mut RowRng, w: u32) {
    b.int(w as i64);
    address_and_tax(b, rng);
    b.int(300_000).end_row();
}

fn districts(b: &mut RowBuf, rng: &mut RowRng, w: u32) {
    for d in 1..=DISTRICTS_PER_WAREHOUSE {
        b.int(d as i64).int(w as i64);
        address_and_tax(b, rng);
        b.int(30_000)
            .int((ORDERS_PER_DISTRICT + 1) as i64)
            .end_row();
    }
}

fn customers(b: &mut RowBuf, rng: &mut RowRng, w: u32, d: u32, now: &str) {
    let mut last = String::with_capacity(16);
    for c in 1..=CUSTOMERS_PER_DISTRICT {
        // The first thousand customers take each last name once; the rest NURand's.
        let num = if c <= 1000 {
            c - 1
        } else {
            rng.nurand(255, 0, 999)
        };
        last_name(num as u64, &mut last);
        b.int(c as i64).int(d as i64).int(w as i64);
        let first_len = rng.uniform(2, 10);
        b.random_letters(rng, "first-", first_len)
            .text("OE")
            .text(&last)
            .template(rng, "street1-@@@@@@@@@@")
            .template(rng, "street2-@@@@@@@@@@")
            .template(rng, "city-@@@@@@@@@@")
            .template(rng, "@@")
            .template(rng, "zip-#####")
            .template(rng, "################")
            .text(now);
        // 10% bad credit.
        let credit = if rng.uniform(1, 100) > 10 { "GC" } else { "BC" };
        let discount = rng.uniform_double() * 0.5;
        b.text(credit)
            .int(50_000)
            .decimal(discount)
            .int(-10)
            .int(10)
            .int(1)
            .int(0);
        let data_len = rng.uniform(300, 500);
        b.repeated_letter(rng, data_len).end_row();
    }
}

fn history(b: &mut RowBuf, rng: &mut RowRng, w: u32, d: u32, now: &str) {
    for c in 1..=CUSTOMERS_PER_DISTRICT {
        b.int(c as i64)
            .int(d as i64)
            .int(w as i64)
            .int(d as i64)
            .int(w as i64)
            .text(now)
            .int(10);
        let len = rng.uniform(12, 24);
        b.repeated_letter(rng, len).end_row();
    }
}

fn orders(
    b: &mut RowBuf,
    rng: &mut RowRng,
    w: u32,
    d: u32,
    customer_of_order: &[u16],
    lines: &[u8],
    now: &str,
) {
    for o in 1..=ORDERS_PER_DISTRICT {
        let i = (o - 1) as usize;
        b.int(o as i64)
            .int(d as i64)
            .int(w as i64)
            .int(customer_of_order[i] as i64)
            .text(now);
        if o < FIRST_NEW_ORDER {
            let carrier = rng.uniform(1, 10);
            b.int(carrier as i64);
        } else {
            b.null();
        }
        b.int(lines[i] as i64).int(1).end_row();
    }
}

fn new_orders(b: &mut RowBuf, w: u32, d: u32) {
    for o in FIRST_NEW_ORDER..=ORDERS_PER_DISTRICT {
        b.int(o as i64).int(d as i64).int(w as i64).end_row();
    }
}

fn order_lines(b: &mut RowBuf, rng: &mut RowRng, w: u32, d: u32, lines: &[u8], now: &str) {
    for o in 1..=ORDERS_PER_DISTRICT {
        let delivered = o < FIRST_NEW_ORDER;
        for number in 1..=lines[(o - 1) as usize] {
            let item = rng.uniform(1, MAX_ITEMS);
            b.int(o as i64)
                .int(d as i64)
                .int(w as i64)
                .int(number as i64)
                .int(item as i64)
                .int(w as i64);
            if delivered {
                b.text(now).int(5).decimal(0.0);
            } else {
                let amount = rng.uniform_double() * 9999.99;
                b.null().int(5).decimal(amount);
            }
            b.repeated_letter(rng, 24).end_row();
        }
    }
}

fn stock(b: &mut RowBuf, rng: &mut RowRng, w: u32, first: u32, last: u32) {
    for i in first..=last {
        let quantity = rng.uniform(10, 100);
        b.int(i as i64).int(w as i64).int(quantity as i64);
        for _ in 0..10 {
            b.repeated_letter(rng, 24);
        }
        b.int(0).int(0).int(0);
        let len = rng.uniform(26, 50);
        b.repeated_letter(rng, len).end_row();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tpcc::rows::RowFormat;

    #[test]
    fn the_plan_covers_every_row_of_every_table_once() {
        let mut rng = RowRng::new();
        let units = plan(2, 3, &mut rng);
        let count = |f: &dyn Fn(&Unit) -> bool| units.iter().filter(|u| f(u)).count();
        assert_eq!(count(&|u| matches!(u, Unit::Items { .. })), 2 * 5);
        assert_eq!(count(&|u| matches!(u, Unit::Warehouse { .. })), 2 * 3);
        assert_eq!(count(&|u| matches!(u, Unit::Customers { .. })), 2 * 3 * 10);
        assert_eq!(count(&|u| matches!(u, Unit::Orders { .. })), 2 * 3 * 10);
        let stock_rows: u64 = units
            .iter()
            .filter(|u| matches!(u, Unit::Stock { set: 2, w: 3, .. }))
            .map(Unit::rows)
            .sum();
        assert_eq!(stock_rows, MAX_ITEMS as u64);
        // Round-robin: the first warehouse units after the items are of different warehouses.
        let after_items: Vec<(u32, u32)> = units[10..13]
            .iter()
            .map(|u| match u {
                Unit::Stock { set, w, .. } => (*set, *w),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(after_items, [(1, 1), (1, 2), (1, 3)]);
    }

    #[test]
    fn a_warehouses_districts_share_one_permutation_of_customers() {
        let mut rng = RowRng::new();
        let units = plan(1, 1, &mut rng);
        let perms: Vec<&Arc<Vec<u16>>> = units
            .iter()
            .filter_map(|u| match u {
                Unit::Orders {
                    customer_of_order, ..
                } => Some(customer_of_order),
                _ => None,
            })
            .collect();
        assert_eq!(perms.len(), 10);
        assert!(perms.iter().all(|p| Arc::ptr_eq(p, perms[0])));
        let mut sorted = perms[0].to_vec();
        sorted.sort();
        assert_eq!(sorted, (1..=3000).collect::<Vec<u16>>());
    }

    fn written(unit: &Unit, table: &str) -> Vec<Vec<String>> {
        let mut rng = RowRng::new();
        let t = unit
            .tables()
            .into_iter()
            .find(|t| t.table == table)
            .unwrap();
        let mut b = RowBuf::new(RowFormat::Tsv);
        (t.write)(&mut b, &mut rng, "2026-12-01 00:00:00");
        let text = String::from_utf8(b.bytes_mut().clone()).unwrap();
        text.lines()
            .map(|l| l.split('\t').map(str::to_string).collect())
            .collect()
    }

    #[test]
    fn orders_new_orders_and_lines_follow_the_references_rules() {
        let mut rng = RowRng::new();
        let units = plan(1, 1, &mut rng);
        let unit = units
            .iter()
            .find(|u| matches!(u, Unit::Orders { d: 4, .. }))
            .unwrap();
        let Unit::Orders { lines, .. } = unit else {
            unreachable!()
        };
        let orders = written(unit, "orders");
        assert_eq!(orders.len(), 3000);
        // Delivered orders (o_id < 2101) have a carrier; the rest NULL.
        assert_ne!(orders[2099][5], "\\N");
        assert_eq!(orders[2100][5], "\\N");
        assert_eq!(orders[0][6], lines[0].to_string());
        let new_orders = written(unit, "new_orders");
        assert_eq!(new_orders.len(), 900);
        assert_eq!(new_orders[0], ["2101", "4", "1"]);
        let ol = written(unit, "order_line");
        let total: usize = lines.iter().map(|&l| l as usize).sum();
        assert_eq!(ol.len(), total);
        let last_delivered = ol.iter().rfind(|r| r[0] == "2100").unwrap();
        assert_eq!(last_delivered[6], "2026-12-01 00:00:00");
        assert_eq!(last_delivered[8], "0.00");
        let undelivered = ol.iter().find(|r| r[0] == "2101").unwrap();
        assert_eq!(undelivered[6], "\\N");
    }

    #[test]
    fn customers_take_every_last_name_first_and_one_in_ten_bad_credit() {
        let unit = Unit::Customers { set: 1, w: 2, d: 3 };
        let rows = written(&unit, "customer");
        assert_eq!(rows.len(), 3000);
        assert_eq!(rows[0][5], "BARBARBAR");
        assert_eq!(rows[999][5], "EINGEINGEING");
        let bad = rows.iter().filter(|r| r[13] == "BC").count();
        assert!((150..=450).contains(&bad), "{bad} of 3000 bad credit");
        assert!(rows.iter().all(|r| (300..=500).contains(&r[20].len())));
        let history = written(&unit, "history");
        assert_eq!(history.len(), 3000);
        assert_eq!(
            history[0][..7],
            ["1", "3", "2", "3", "2", "2026-12-01 00:00:00", "10"]
        );
    }

    #[test]
    fn items_are_cut_to_their_columns() {
        let rows = written(
            &Unit::Items {
                set: 1,
                first: 1,
                last: 500,
            },
            "item",
        );
        assert_eq!(rows.len(), 500);
        for r in &rows {
            assert!(r[2].starts_with("item-") && r[2].len() <= 24, "{r:?}");
            assert!(r[4].starts_with("data-item-") && r[4].len() <= 50, "{r:?}");
            let price: f64 = r[3].parse().unwrap();
            // decimal(5,2) rounds 100.995 and up to 101.00, as the reference stores it.
            assert!((1.0..=101.0).contains(&price), "{r:?}");
        }
    }
}
