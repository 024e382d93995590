//! Scenario names and statement classes, spelled as sysbench spells them.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::results::QueryKind;

/// One of sysbench's bundled OLTP scripts.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Scenario {
    OltpPointSelect,
    OltpReadOnly,
    OltpReadWrite,
    OltpWriteOnly,
    OltpInsert,
    OltpDelete,
    OltpUpdateIndex,
    OltpUpdateNonIndex,
    SelectRandomPoints,
    SelectRandomRanges,
    BulkInsert,
    /// Percona's sysbench-tpcc (`tpcc.lua`): the TPC-C-like mix of [`crate::tpcc`].
    Tpcc,
}

impl Scenario {
    pub const ALL: [Scenario; 12] = [
        Scenario::OltpPointSelect,
        Scenario::OltpReadOnly,
        Scenario::OltpReadWrite,
        Scenario::OltpWriteOnly,
        Scenario::OltpInsert,
        Scenario::OltpDelete,
        Scenario::OltpUpdateIndex,
        Scenario::OltpUpdateNonIndex,
        Scenario::SelectRandomPoints,
        Scenario::SelectRandomRanges,
        Scenario::BulkInsert,
        Scenario::Tpcc,
    ];

    /// The seed toolkit's default scenario list.
    pub const DEFAULT_LADDER: [Scenario; 4] = [
        Scenario::OltpPointSelect,
        Scenario::OltpReadOnly,
        Scenario::OltpReadWrite,
        Scenario::OltpWriteOnly,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Scenario::OltpPointSelect => "oltp_point_select",
            Scenario::OltpReadOnly => "oltp_read_only",
            Scenario::OltpReadWrite => "oltp_read_write",
            Scenario::OltpWriteOnly => "oltp_write_only",
            Scenario::OltpInsert => "oltp_insert",
            Scenario::OltpDelete => "oltp_delete",
            Scenario::OltpUpdateIndex => "oltp_update_index",
            Scenario::OltpUpdateNonIndex => "oltp_update_non_index",
            Scenario::SelectRandomPoints => "select_random_points",
            Scenario::SelectRandomRanges => "select_random_ranges",
            Scenario::BulkInsert => "bulk_insert",
            Scenario::Tpcc => "tpcc",
        }
    }

    /// Scenarios whose tables have sysbench's bulk_insert shape (id, k) instead of the OLTP one.
    pub fn uses_bulk_tables(self) -> bool {
        self == Scenario::BulkInsert
    }

    /// The TPC-C mix: its own tables and transactions instead of a statement shape.
    pub fn is_tpcc(self) -> bool {
        self == Scenario::Tpcc
    }

    /// Scenarios that change data. Their results depend on what earlier steps did to the tables.
    pub fn writes(self) -> bool {
        !matches!(
            self,
            Scenario::OltpPointSelect
                | Scenario::OltpReadOnly
                | Scenario::SelectRandomPoints
                | Scenario::SelectRandomRanges
        )
    }

    /// sysbench asserts `--tables == 1` for these two scripts.
    pub fn single_table_only(self) -> bool {
        matches!(
            self,
            Scenario::SelectRandomPoints | Scenario::SelectRandomRanges
        )
    }
}

impl fmt::Display for Scenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown scenario '{0}'; known: oltp_point_select, oltp_read_only, oltp_read_write, oltp_write_only, oltp_insert, oltp_delete, oltp_update_index, oltp_update_non_index, select_random_points, select_random_ranges, bulk_insert, tpcc")]
pub struct UnknownScenario(pub String);

impl FromStr for Scenario {
    type Err = UnknownScenario;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        // People paste script paths and file names from their old shell loops.
        let base = s.trim().rsplit('/').next().unwrap_or(s);
        let base = base.strip_suffix(".lua").unwrap_or(base);
        Scenario::ALL
            .into_iter()
            .find(|sc| sc.name() == base)
            .ok_or_else(|| UnknownScenario(s.to_string()))
    }
}

/// A kind of statement within a transaction. Latency is kept per class, and the
/// statement text of each class lives in [`super::sql`].
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum StatementClass {
    Begin,
    Commit,
    PointSelect,
    SimpleRange,
    SumRange,
    OrderRange,
    DistinctRange,
    IndexUpdate,
    NonIndexUpdate,
    Delete,
    Insert,
    RandomPoints,
    RandomRanges,
    BulkInsert,
}

impl StatementClass {
    pub const COUNT: usize = 14;

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn all() -> [StatementClass; Self::COUNT] {
        use StatementClass::*;
        [
            Begin,
            Commit,
            PointSelect,
            SimpleRange,
            SumRange,
            OrderRange,
            DistinctRange,
            IndexUpdate,
            NonIndexUpdate,
            Delete,
            Insert,
            RandomPoints,
            RandomRanges,
            BulkInsert,
        ]
    }

    pub fn kind(self) -> QueryKind {
        use StatementClass::*;
        match self {
            Begin | Commit => QueryKind::Other,
            PointSelect | SimpleRange | SumRange | OrderRange | DistinctRange | RandomPoints
            | RandomRanges => QueryKind::Read,
            IndexUpdate | NonIndexUpdate | Delete | Insert | BulkInsert => QueryKind::Write,
        }
    }

    pub fn label(self) -> &'static str {
        use StatementClass::*;
        match self {
            Begin => "begin",
            Commit => "commit",
            PointSelect => "point select",
            SimpleRange => "simple range",
            SumRange => "sum range",
            OrderRange => "order range",
            DistinctRange => "distinct range",
            IndexUpdate => "index update",
            NonIndexUpdate => "non-index update",
            Delete => "delete",
            Insert => "insert",
            RandomPoints => "random points",
            RandomRanges => "random ranges",
            BulkInsert => "bulk insert",
        }
    }
}

impl fmt::Display for StatementClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_accept_script_paths() {
        for sc in Scenario::ALL {
            assert_eq!(sc.name().parse::<Scenario>().unwrap(), sc);
        }
        assert_eq!(
            "/usr/share/sysbench/oltp_read_write.lua"
                .parse::<Scenario>()
                .unwrap(),
            Scenario::OltpReadWrite
        );
        assert_eq!("./tpcc.lua".parse::<Scenario>().unwrap(), Scenario::Tpcc);
        assert!("oltp_read_wrote".parse::<Scenario>().is_err());
    }

    #[test]
    fn class_indexes_are_dense() {
        for (i, c) in StatementClass::all().into_iter().enumerate() {
            assert_eq!(c.index(), i);
        }
    }
}
