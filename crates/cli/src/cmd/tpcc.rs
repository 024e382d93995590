//! `dbdyno tpcc [options] <command>` (or `dbdyno ./tpcc.lua …`): sysbench-tpcc's own
//! options are read first, by the engine's one parser ([`dbdyno_engine::tpcc::args`]),
//! and given back in the profile's spelling (`--use_fk 0` becomes `--use-fk=off`), so
//! the overlay sets the ones named onto the profile like every other workload option
//! and a profile's `scale = 10` holds where the command line is silent. The rest
//! (connection, `--threads`, `--time`, `--tables` ...) is the sysbench form every
//! workload shares.

use dbdyno_engine::tpcc::args::{take_tpcc_args, TpccArgError};
use dbdyno_engine::tpcc::TpccOptions;
use dbdyno_engine::Scenario;

/// A `tpcc` command line with sysbench-tpcc's options checked and re-spelled as the
/// profile's options; any other command line unchanged.
pub fn take_options(argv: Vec<String>) -> Result<Vec<String>, TpccArgError> {
    if !argv.iter().skip(1).any(|a| names_tpcc(a)) {
        return Ok(argv);
    }
    let named: Vec<String> = argv
        .iter()
        .skip(1)
        .filter_map(|a| a.strip_prefix("--"))
        .map(|b| b.split('=').next().unwrap_or(b).replace('-', "_"))
        .collect();
    let (o, mut rest) = take_tpcc_args(argv)?;
    rest.extend(
        profile_spelling(&o)
            .into_iter()
            .filter(|(name, _)| named.iter().any(|n| n == name))
            .map(|(name, value)| format!("--{}={value}", name.replace('_', "-"))),
    );
    Ok(rest)
}

/// Each option of sysbench-tpcc's own that is a profile key, by its sysbench-tpcc
/// name, with the value as the profile's option takes it.
fn profile_spelling(o: &TpccOptions) -> [(&'static str, String); 6] {
    let on = |b: bool| if b { "on" } else { "off" }.to_string();
    let trx_level = match o.trx_level {
        dbdyno_engine::tpcc::IsolationLevel::ReadCommitted => "RC",
        dbdyno_engine::tpcc::IsolationLevel::RepeatableRead => "RR",
        dbdyno_engine::tpcc::IsolationLevel::Serializable => "SER",
    };
    [
        ("scale", o.scale.to_string()),
        ("use_fk", on(o.use_fk)),
        ("force_pk", on(o.force_pk)),
        ("trx_level", trx_level.to_string()),
        ("enable_purge", on(o.enable_purge)),
        ("mysql_table_options", o.table_options.clone()),
    ]
}

/// The workload word `tpcc` (or `./tpcc.lua`), or a scenario list that holds it
/// (`ladder --scenarios=tpcc,oltp_read_write`; `--scenarios tpcc` also matches, on
/// its value).
fn names_tpcc(arg: &str) -> bool {
    let list = match arg.strip_prefix("--scenarios=") {
        Some(list) => list,
        None if arg.starts_with('-') => return false,
        None => arg,
    };
    list.split(',')
        .any(|w| w.parse::<Scenario>() == Ok(Scenario::Tpcc))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn tpcc_options_named_are_given_back_in_the_profiles_spelling() {
        let rest = take_options(argv(
            "dbdyno ./tpcc.lua --scale 3 --use_fk=0 --trx-level=RC --threads=2 run",
        ))
        .unwrap();
        assert_eq!(
            rest,
            argv("dbdyno ./tpcc.lua --threads=2 run --scale=3 --use-fk=off --trx-level=RC")
        );
        let rest = take_options(argv(
            "dbdyno ladder --scenarios=oltp_read_only,tpcc --enable_purge --report_csv=no",
        ))
        .unwrap();
        assert_eq!(
            rest,
            argv("dbdyno ladder --scenarios=oltp_read_only,tpcc --enable-purge=on")
        );
        assert!(take_options(argv("dbdyno tpcc --trx_level=XX run")).is_err());
        let line = argv("dbdyno oltp_read_only --tables=2 run");
        assert_eq!(take_options(line.clone()).unwrap(), line);
    }
}
