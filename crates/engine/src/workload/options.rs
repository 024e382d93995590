//! sysbench's script options, with sysbench 1.0.20's names and defaults.

use serde::{Deserialize, Serialize};

/// Options of `oltp_common.lua` and the per-script extras. Field names are sysbench's
/// (`--table-size` is `table_size`), so profiles and command lines translate one to one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct WorkloadOptions {
    pub tables: u32,
    pub table_size: u64,
    pub range_size: u32,
    pub point_selects: u32,
    pub simple_ranges: u32,
    pub sum_ranges: u32,
    pub order_ranges: u32,
    pub distinct_ranges: u32,
    pub index_updates: u32,
    pub non_index_updates: u32,
    pub delete_inserts: u32,
    pub range_selects: bool,
    pub skip_trx: bool,
    pub auto_inc: bool,
    pub secondary: bool,
    pub create_secondary: bool,
    pub mysql_storage_engine: String,
    /// select_random_points: values in the IN() list.
    pub random_points: u32,
    /// select_random_ranges: BETWEEN ranges per SELECT, and their width.
    pub number_of_ranges: u32,
    pub delta: u32,
    pub rand: RandOptions,
    pub ps_mode: PsMode,
    pub ignore_errors: IgnoreErrors,
    /// The `tpcc` scenario's options (`--scale`, `--trx_level`, ...); `tables` above
    /// mirrors its `--tables`.
    pub tpcc: crate::tpcc::TpccOptions,
}

impl Default for WorkloadOptions {
    fn default() -> Self {
        WorkloadOptions {
            tables: 1,
            table_size: 10_000,
            range_size: 100,
            point_selects: 10,
            simple_ranges: 1,
            sum_ranges: 1,
            order_ranges: 1,
            distinct_ranges: 1,
            index_updates: 1,
            non_index_updates: 1,
            delete_inserts: 1,
            range_selects: true,
            skip_trx: false,
            auto_inc: true,
            secondary: false,
            create_secondary: true,
            mysql_storage_engine: "innodb".to_string(),
            random_points: 10,
            number_of_ranges: 10,
            delta: 5,
            rand: RandOptions::default(),
            ps_mode: PsMode::Auto,
            ignore_errors: IgnoreErrors::default(),
            tpcc: crate::tpcc::TpccOptions::default(),
        }
    }
}

/// `--db-ps-mode`: server-side prepared statements (`auto`, sysbench's default) or plain
/// text queries (`disable`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum PsMode {
    #[default]
    Auto,
    Disable,
}

/// `--rand-type` and its parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct RandOptions {
    pub rand_type: RandType,
    pub spec_iter: u32,
    pub spec_pct: f64,
    pub spec_res: f64,
    /// 0 seeds from the clock, as sysbench does (`srandom(time(NULL))`), each run
    /// differently; any other value repeats the run's draws.
    pub seed: u64,
    pub pareto_h: f64,
    pub zipfian_exp: f64,
}

impl Default for RandOptions {
    fn default() -> Self {
        RandOptions {
            rand_type: RandType::Special,
            spec_iter: 12,
            spec_pct: 1.0,
            spec_res: 75.0,
            seed: 0,
            pareto_h: 0.2,
            zipfian_exp: 0.8,
        }
    }
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RandType {
    Uniform,
    Gaussian,
    #[default]
    Special,
    Pareto,
    Zipfian,
}

impl std::str::FromStr for RandType {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s {
            "uniform" => RandType::Uniform,
            "gaussian" => RandType::Gaussian,
            "special" => RandType::Special,
            "pareto" => RandType::Pareto,
            "zipfian" => RandType::Zipfian,
            other => {
                return Err(format!(
                    "unknown rand-type '{other}' (uniform, gaussian, special, pareto, zipfian)"
                ))
            }
        })
    }
}

/// `--mysql-ignore-errors`: server error codes that restart the transaction instead of
/// stopping the step. sysbench's default is 1213 (deadlock), 1020 (record changed),
/// 1205 (lock wait timeout).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum IgnoreErrors {
    All,
    Codes(Vec<u16>),
}

impl Default for IgnoreErrors {
    fn default() -> Self {
        IgnoreErrors::Codes(vec![1213, 1020, 1205])
    }
}

impl IgnoreErrors {
    pub fn ignores(&self, code: u16) -> bool {
        match self {
            IgnoreErrors::All => true,
            IgnoreErrors::Codes(codes) => codes.contains(&code),
        }
    }

    /// Parses sysbench's syntax: a comma-separated list of codes, or `all`.
    pub fn parse(s: &str) -> Result<Self, String> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("all") {
            return Ok(IgnoreErrors::All);
        }
        if s.is_empty() || s.eq_ignore_ascii_case("none") {
            return Ok(IgnoreErrors::Codes(Vec::new()));
        }
        s.split(',')
            .map(|c| {
                c.trim()
                    .parse::<u16>()
                    .map_err(|_| format!("'{c}' is not a MySQL error code"))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(IgnoreErrors::Codes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignore_errors_syntax() {
        assert_eq!(IgnoreErrors::parse("all").unwrap(), IgnoreErrors::All);
        assert_eq!(
            IgnoreErrors::parse("1213,1205").unwrap(),
            IgnoreErrors::Codes(vec![1213, 1205])
        );
        assert!(IgnoreErrors::parse("12x").is_err());
        assert!(IgnoreErrors::default().ignores(1213));
        assert!(!IgnoreErrors::default().ignores(1062));
    }
}
