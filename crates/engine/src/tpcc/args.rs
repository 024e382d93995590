//! sysbench-tpcc's command-line options, parsed once for every `tpcc` command
//! (`prepare`, `run`, `cleanup`, `check`): [`take_tpcc_args`] takes them out of a
//! command line and leaves the options every workload shares (`--tables`, the
//! connection, `--threads`, `--time` ...) for the caller's own parser.

use super::{IsolationLevel, TpccOptions};

/// An option of sysbench-tpcc given a value it does not take.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--{option}: {message}")]
pub struct TpccArgError {
    pub option: String,
    pub message: String,
}

/// Options only sysbench-tpcc has, by their names with `_` (sysbench accepts `-` too).
const OWN: [&str; 9] = [
    "scale",
    "use_fk",
    "force_pk",
    "trx_level",
    "enable_purge",
    "mysql_table_options",
    "report_csv",
    "pgsql_schema",
    "splittable",
];

/// Splits `argv` into the TPC-C options and the rest. `--tables` and
/// `--mysql_storage_engine` are read and also left in the rest, where the shared
/// options want them.
pub fn take_tpcc_args(argv: Vec<String>) -> Result<(TpccOptions, Vec<String>), TpccArgError> {
    let mut o = TpccOptions::default();
    let mut rest = Vec::with_capacity(argv.len());
    let mut args = argv.into_iter().peekable();
    while let Some(arg) = args.next() {
        let Some(body) = arg.strip_prefix("--") else {
            rest.push(arg);
            continue;
        };
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n.replace('-', "_"), Some(v.to_string())),
            None => (body.replace('-', "_"), None),
        };
        let shared = matches!(name.as_str(), "tables" | "mysql_storage_engine");
        if !OWN.contains(&name.as_str()) && !shared {
            rest.push(arg);
            continue;
        }
        let value = match inline {
            Some(v) => v,
            // `--scale 4`: the next word is the value unless it is another option.
            None => match args.peek() {
                Some(next) if !next.starts_with("--") && !is_command(next) => {
                    args.next().unwrap_or_default()
                }
                _ => String::new(),
            },
        };
        set(&mut o, &name, &value)?;
        if shared {
            rest.push(format!("--{name}={value}"));
        }
    }
    Ok((o, rest))
}

fn is_command(word: &str) -> bool {
    matches!(word, "prepare" | "run" | "cleanup" | "check" | "prewarm")
}

/// Sets one option, as sysbench-tpcc reads it.
pub fn set(o: &mut TpccOptions, name: &str, value: &str) -> Result<(), TpccArgError> {
    let bad = |message: &str| TpccArgError {
        option: name.to_string(),
        message: format!("'{value}': {message}"),
    };
    let count = |min: u32| -> Result<u32, TpccArgError> {
        value
            .parse::<u32>()
            .ok()
            .filter(|n| *n >= min)
            .ok_or_else(|| bad(&format!("expected a whole number of at least {min}")))
    };
    // sysbench-tpcc compares numbers to 1 and strings to "yes".
    let flag = || -> Result<bool, TpccArgError> {
        match value {
            "1" | "yes" | "on" | "true" | "" => Ok(true),
            "0" | "no" | "off" | "false" => Ok(false),
            _ => Err(bad("expected 1/0 or yes/no")),
        }
    };
    match name {
        "scale" => o.scale = count(1)?,
        "tables" => o.tables = count(1)?,
        "use_fk" => o.use_fk = flag()?,
        "force_pk" => o.force_pk = flag()?,
        "enable_purge" => o.enable_purge = flag()?,
        "trx_level" => {
            o.trx_level =
                IsolationLevel::parse(value).ok_or_else(|| bad("expected RC, RR or SER"))?
        }
        "mysql_storage_engine" => o.storage_engine = value.to_string(),
        "mysql_table_options" => o.table_options = value.to_string(),
        // Output and PostgreSQL options: only their defaults mean something here.
        "report_csv" | "splittable" if !flag()? => {}
        "pgsql_schema" => {}
        _ => return Err(bad("not supported by DB Dyno's tpcc")),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn tpcc_options_are_taken_and_the_rest_kept() {
        let (o, rest) = take_tpcc_args(argv(
            "dbdyno tpcc --scale=4 --tables 2 --trx_level=RC --enable_purge=yes --use-fk=0 --threads=8 --time=10 run",
        ))
        .unwrap();
        assert_eq!(o.scale, 4);
        assert_eq!(o.tables, 2);
        assert_eq!(o.trx_level, IsolationLevel::ReadCommitted);
        assert!(o.enable_purge);
        assert!(!o.use_fk);
        assert_eq!(
            rest,
            argv("dbdyno tpcc --tables=2 --threads=8 --time=10 run")
        );
    }

    #[test]
    fn bad_values_name_their_option() {
        let e = take_tpcc_args(argv("tpcc --trx_level=XX run")).unwrap_err();
        assert_eq!(e.option, "trx_level");
        assert!(take_tpcc_args(argv("tpcc --scale=0 run")).is_err());
        assert!(take_tpcc_args(argv("tpcc --splittable=yes run")).is_err());
        let (o, _) = take_tpcc_args(argv("tpcc run")).unwrap();
        assert_eq!(o, TpccOptions::default());
    }
}
