//! The one table of profile keys: dotted key, the command-line option of the same name,
//! the kind of value, and a line of documentation. Command-line overrides, the
//! profile-as-options form and `docs/profiles.md` all come from it, and a test checks
//! that it names every field of [`Profile`] and nothing else.
//!
//! Naming rule: `[mysql] X` is `--mysql-X`, `[ssh] X` is `--ssh-X`, `[plan] X` and
//! `[workload] X` are `--X`; `name` is `--env`; `_` in a key is `-` in the option.

use serde_json::Value;

use crate::{Problem, Profile};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Str,
    Int,
    Float,
    /// on/off, true/false, yes/no, 1/0 on the command line.
    Bool,
    /// Comma-separated on the command line.
    StrList,
    IntList,
}

#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// Dotted key in the profile: `plan.threads`.
    pub key: &'static str,
    /// The long option without dashes: `threads`.
    pub option: &'static str,
    pub kind: Kind,
    pub doc: &'static str,
}

const fn f(key: &'static str, option: &'static str, kind: Kind, doc: &'static str) -> Field {
    Field {
        key,
        option,
        kind,
        doc,
    }
}

use Kind::*;

pub const FIELDS: &[Field] = &[
    f(
        "name",
        "env",
        Str,
        "environment name; runs are filed under it",
    ),
    f("description", "description", Str, "free text"),
    f(
        "labels",
        "labels",
        StrList,
        "tags: idc, cloud, nvme, mysql80",
    ),
    f(
        "data_disk",
        "data-disk",
        Str,
        "block device of the MySQL data directory (nvme0n1), to override the resolver",
    ),
    f("mysql.host", "mysql-host", Str, "server host name or IP"),
    f("mysql.port", "mysql-port", Int, "server port"),
    f(
        "mysql.socket",
        "mysql-socket",
        Str,
        "unix socket (host and port are then not used)",
    ),
    f("mysql.user", "mysql-user", Str, "account"),
    f(
        "mysql.db",
        "mysql-db",
        Str,
        "schema holding the benchmark tables",
    ),
    f(
        "mysql.ssl_mode",
        "mysql-ssl-mode",
        Str,
        "disabled, required, verify_ca, verify_identity",
    ),
    f(
        "mysql.ssl_ca",
        "mysql-ssl-ca",
        Str,
        "CA certificate (PEM) for verify_ca / verify_identity",
    ),
    f(
        "mysql.server_public_key_path",
        "mysql-server-public-key-path",
        Str,
        "server's RSA public key (PEM) for caching_sha2_password over plain TCP",
    ),
    f(
        "mysql.get_server_public_key",
        "mysql-get-server-public-key",
        Bool,
        "ask the server for its RSA key (caching_sha2_password over plain TCP)",
    ),
    f(
        "mysql.ignore_errors",
        "mysql-ignore-errors",
        Str,
        "error codes that restart a transaction (\"1213,1020,1205\", \"all\")",
    ),
    f(
        "mysql.password_from",
        "mysql-password-from",
        Str,
        "keyring (default), env (MYSQL_PWD), prompt, none",
    ),
    f(
        "ssh.host",
        "ssh-host",
        Str,
        "SSH host of the database server",
    ),
    f("ssh.port", "ssh-port", Int, "SSH port"),
    f("ssh.user", "ssh-user", Str, "SSH account"),
    f("ssh.auth", "ssh-auth", Str, "agent, key or password"),
    f(
        "ssh.key_path",
        "ssh-key-path",
        Str,
        "private key file for auth = key",
    ),
    f(
        "ssh.host_key_fingerprint",
        "ssh-host-key-fingerprint",
        Str,
        "accepted host key (SHA256:...)",
    ),
    f(
        "ssh.jump",
        "ssh-jump",
        Str,
        "jump hosts in between (ProxyJump: [user@]host[:port],...)",
    ),
    f(
        "ssh.config",
        "ssh-config",
        Str,
        "OpenSSH client config read for the host (default ~/.ssh/config; none: none)",
    ),
    f(
        "plan.scenarios",
        "scenarios",
        StrList,
        "scenarios, run in this order",
    ),
    f("plan.threads", "threads", IntList, "the thread ladder"),
    f(
        "plan.clients",
        "clients",
        StrList,
        "load clients that take part: local, ssh://[user@]host[:port] (default: local and every [[clients]] entry)",
    ),
    f("plan.time", "time", Int, "seconds per measured step"),
    f(
        "plan.events",
        "events",
        Int,
        "stop a step after this many transactions (0 = no limit)",
    ),
    f(
        "plan.warmup",
        "warmup",
        Int,
        "seconds of unmeasured load before each step",
    ),
    f(
        "plan.cooldown",
        "cooldown",
        Int,
        "seconds of pause between steps",
    ),
    f(
        "plan.rate",
        "rate",
        Float,
        "fixed arrival rate in transactions/s (0 = as fast as possible)",
    ),
    f(
        "plan.rates",
        "rates",
        IntList,
        "a rate ladder: one open-loop step per arrival rate (transactions/s), in place of the thread ladder",
    ),
    f(
        "plan.rate_dist",
        "rate-dist",
        Str,
        "how arrivals are spaced under rate or rates: fixed or poisson",
    ),
    f(
        "plan.report_interval",
        "report-interval",
        Int,
        "seconds per interval record and line",
    ),
    f(
        "plan.percentile",
        "percentile",
        Float,
        "latency percentile of interval lines and the summary",
    ),
    f(
        "plan.stall_timeout",
        "stall-timeout",
        Int,
        "seconds the server may answer no connection (a frozen host, a cut network) before the step fails (default 30)",
    ),
    f(
        "plan.prepare",
        "prepare",
        Str,
        "load the tables first: if-missing (reuse DB Dyno's own tables in the plan's shape, load them when absent), always (drop DB Dyno's tables and load again) or never; true means if-missing, false never",
    ),
    f(
        "plan.prewarm",
        "prewarm",
        Bool,
        "read the tables into the buffer pool first",
    ),
    f(
        "plan.prewarm_until_hit_rate",
        "prewarm-until-hit-rate",
        Float,
        "repeat prewarm until this buffer pool hit rate (percent)",
    ),
    f(
        "plan.cleanup",
        "cleanup",
        Bool,
        "drop the tables after the last step",
    ),
    f(
        "plan.admin_threads",
        "admin-threads",
        Int,
        "threads for prepare, prewarm and cleanup",
    ),
    f(
        "plan.repeat",
        "repeat",
        Int,
        "runs of every step (1 to 20), interleaved; 3 or more give intervals that hold run-to-run variation",
    ),
    f(
        "plan.force",
        "force",
        Bool,
        "allow prepare/cleanup in a schema with other tables",
    ),
    f(
        "plan.sla",
        "sla",
        Str,
        "latency target each step is judged against (p95<=20ms, p99.9<=100ms, p95<=1.5s); reports lead with the capacity at it",
    ),
    f(
        "plan.sla_search",
        "sla-search",
        Int,
        "after the ladder, at most this many extra steps per scenario bisect threads towards the capacity at sla (0 = none)",
    ),
    f(
        "plan.on_step_error",
        "on-step-error",
        Str,
        "when a step fails: stop the run (stop, the default) or record the step as failed and go on (continue)",
    ),
    f("workload.tables", "tables", Int, "number of tables"),
    f("workload.table_size", "table-size", Int, "rows per table"),
    f(
        "workload.range_size",
        "range-size",
        Int,
        "rows per range query",
    ),
    f(
        "workload.point_selects",
        "point-selects",
        Int,
        "point selects per transaction",
    ),
    f(
        "workload.simple_ranges",
        "simple-ranges",
        Int,
        "simple ranges per transaction",
    ),
    f(
        "workload.sum_ranges",
        "sum-ranges",
        Int,
        "SUM ranges per transaction",
    ),
    f(
        "workload.order_ranges",
        "order-ranges",
        Int,
        "ORDER BY ranges per transaction",
    ),
    f(
        "workload.distinct_ranges",
        "distinct-ranges",
        Int,
        "DISTINCT ranges per transaction",
    ),
    f(
        "workload.index_updates",
        "index-updates",
        Int,
        "index updates per transaction",
    ),
    f(
        "workload.non_index_updates",
        "non-index-updates",
        Int,
        "non-index updates per transaction",
    ),
    f(
        "workload.delete_inserts",
        "delete-inserts",
        Int,
        "DELETE + INSERT pairs per transaction",
    ),
    f(
        "workload.range_selects",
        "range-selects",
        Bool,
        "run the range queries at all",
    ),
    f(
        "workload.skip_trx",
        "skip-trx",
        Bool,
        "no BEGIN/COMMIT around a transaction",
    ),
    f("workload.auto_inc", "auto-inc", Bool, "AUTO_INCREMENT ids"),
    f(
        "workload.secondary",
        "secondary",
        Bool,
        "secondary index instead of a primary key",
    ),
    f(
        "workload.create_secondary",
        "create-secondary",
        Bool,
        "create the k_1 index",
    ),
    f(
        "workload.mysql_storage_engine",
        "mysql-storage-engine",
        Str,
        "storage engine of the tables",
    ),
    f(
        "workload.random_points",
        "random-points",
        Int,
        "select_random_points: values per IN()",
    ),
    f(
        "workload.number_of_ranges",
        "number-of-ranges",
        Int,
        "select_random_ranges: ranges per SELECT",
    ),
    f(
        "workload.delta",
        "delta",
        Int,
        "select_random_ranges: range width",
    ),
    f(
        "workload.rand_type",
        "rand-type",
        Str,
        "uniform, gaussian, special, pareto, zipfian",
    ),
    f(
        "workload.rand_spec_iter",
        "rand-spec-iter",
        Int,
        "special distribution: iterations",
    ),
    f(
        "workload.rand_spec_pct",
        "rand-spec-pct",
        Float,
        "special distribution: percent of values treated as special",
    ),
    f(
        "workload.rand_spec_res",
        "rand-spec-res",
        Float,
        "special distribution: percent of queries hitting them",
    ),
    f(
        "workload.rand_seed",
        "rand-seed",
        Int,
        "random seed (0 = from the clock)",
    ),
    f(
        "workload.rand_pareto_h",
        "rand-pareto-h",
        Float,
        "pareto distribution h",
    ),
    f(
        "workload.rand_zipfian_exp",
        "rand-zipfian-exp",
        Float,
        "zipfian distribution exponent",
    ),
    f(
        "workload.db_ps_mode",
        "db-ps-mode",
        Str,
        "auto (server-side prepared statements) or disable",
    ),
    f(
        "workload.scale",
        "scale",
        Int,
        "tpcc: warehouses per set of tables",
    ),
    f(
        "workload.use_fk",
        "use-fk",
        Bool,
        "tpcc: create the foreign keys",
    ),
    f(
        "workload.force_pk",
        "force-pk",
        Bool,
        "tpcc: give the history table a primary key",
    ),
    f(
        "workload.trx_level",
        "trx-level",
        Str,
        "tpcc: isolation level, RC, RR or SER",
    ),
    f(
        "workload.enable_purge",
        "enable-purge",
        Bool,
        "tpcc: add the purge transaction to the mix",
    ),
    f(
        "workload.mysql_table_options",
        "mysql-table-options",
        Str,
        "tpcc: text appended to every CREATE TABLE",
    ),
];

/// The field with this dotted key.
pub fn by_key(key: &str) -> Option<&'static Field> {
    FIELDS.iter().find(|f| f.key == key)
}

/// The field set by this long option (without dashes; `_` and `-` are the same).
pub fn by_option(option: &str) -> Option<&'static Field> {
    let o = option.replace('_', "-");
    FIELDS.iter().find(|f| f.option == o)
}

fn split(key: &str) -> (Option<&str>, &str) {
    match key.split_once('.') {
        Some((s, k)) => (Some(s), k),
        None => (None, key),
    }
}

impl Profile {
    /// The profile's settings as command-line options: `("mysql-host", "10.0.0.5")`,
    /// lists comma-separated, booleans `on`/`off`. Only what the profile sets.
    pub fn to_options(&self) -> Vec<(&'static str, String)> {
        let v = serde_json::to_value(self).unwrap_or(Value::Null);
        FIELDS
            .iter()
            .filter_map(|f| {
                let (section, k) = split(f.key);
                let x = match section {
                    Some(s) => v.get(s)?.get(k)?,
                    None => v.get(k)?,
                };
                option_text(x).map(|t| (f.option, t))
            })
            .collect()
    }

    /// Sets one field from its command-line text. The value is checked for its kind
    /// here; [`crate::validate`] checks its range.
    pub fn set_option(&mut self, option: &str, raw: &str) -> Result<(), Problem> {
        let f = by_option(option).ok_or_else(|| Problem {
            field: option.to_string(),
            line: None,
            message: "not a profile option".into(),
        })?;
        let problem = |message: String| Problem {
            field: f.key.to_string(),
            line: None,
            message,
        };
        let value = match f.key {
            // The command line also accepts sysbench's on/off here.
            "mysql.ssl_mode" => {
                let mode: dbdyno_engine::plan::TlsMode = raw.parse().map_err(problem)?;
                serde_json::to_value(mode).map_err(|e| problem(e.to_string()))?
            }
            // `--prepare` alone, and its older on/off, as well as the modes.
            "plan.prepare" => {
                let mode: dbdyno_engine::PrepareMode = raw.parse().map_err(problem)?;
                serde_json::to_value(mode).map_err(|e| problem(e.to_string()))?
            }
            _ => parse_option(f.kind, raw).map_err(problem)?,
        };
        let mut v = serde_json::to_value(&*self).map_err(|e| problem(e.to_string()))?;
        let (section, k) = split(f.key);
        let table = match section {
            Some(s) => {
                let obj = v.as_object_mut().expect("a profile is an object");
                let entry = obj
                    .entry(s)
                    .or_insert_with(|| Value::Object(Default::default()));
                if entry.is_null() {
                    *entry = Value::Object(Default::default());
                }
                entry.as_object_mut().expect("a section is an object")
            }
            None => v.as_object_mut().expect("a profile is an object"),
        };
        table.insert(k.to_string(), value);
        // The caller names the option; say only what is wrong with the value.
        *self =
            serde_json::from_value(v).map_err(|e| problem(plain_serde_message(&e.to_string())))?;
        Ok(())
    }
}

/// serde's wording in words a user acts on: "unknown variant `kerberos`, expected one of
/// `agent`, `key`" becomes "unknown value `kerberos` (expected one of `agent`, `key`)".
fn plain_serde_message(m: &str) -> String {
    let m = m.split(" at line ").next().unwrap_or(m);
    if let Some(rest) = m.strip_prefix("unknown variant `") {
        let v = rest.split('`').next().unwrap_or("");
        let expected = rest.split_once("expected ").map(|x| x.1).unwrap_or("");
        return format!("unknown value `{v}` (expected {expected})");
    }
    m.to_string()
}

fn option_text(v: &Value) -> Option<String> {
    Some(match v {
        Value::Null => return None,
        Value::Bool(b) => if *b { "on" } else { "off" }.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        Value::Array(a) => a
            .iter()
            .filter_map(option_text)
            .collect::<Vec<_>>()
            .join(","),
        Value::Object(_) => return None,
    })
}

fn parse_option(kind: Kind, raw: &str) -> Result<Value, String> {
    let raw = raw.trim();
    let int = |s: &str| {
        s.trim()
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| format!("'{s}' is not a whole number"))
    };
    let items: Vec<&str> = raw
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    Ok(match kind {
        Kind::Str => Value::String(raw.to_string()),
        Kind::Int => int(raw)?,
        Kind::Float => raw
            .parse::<f64>()
            .ok()
            .and_then(|x| serde_json::Number::from_f64(x).map(Value::Number))
            .ok_or_else(|| format!("'{raw}' is not a number"))?,
        Kind::Bool => Value::Bool(match raw.to_ascii_lowercase().as_str() {
            "on" | "true" | "yes" | "1" | "" => true,
            "off" | "false" | "no" | "0" => false,
            other => return Err(format!("'{other}' is not on/off")),
        }),
        Kind::StrList => Value::Array(items.iter().map(|s| Value::String(s.to_string())).collect()),
        Kind::IntList => Value::Array(items.iter().map(|s| int(s)).collect::<Result<_, _>>()?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::*;

    #[test]
    fn a_bad_option_value_is_said_once_in_plain_words() {
        let mut p = Profile::named("x");
        let e = p.set_option("ssh-auth", "kerberos").unwrap_err();
        assert_eq!(e.field, "ssh.auth");
        assert_eq!(
            e.message,
            "unknown value `kerberos` (expected one of `agent`, `key`, `password`)"
        );
        let e = p.set_option("mysql-port", "1.5").unwrap_err();
        assert!(
            !e.message.contains("u16") && !e.message.contains("--mysql-port"),
            "{}",
            e.message
        );
    }

    /// A profile with every field set, to compare against the table.
    pub(crate) fn full_profile() -> Profile {
        let mut p = Profile::named("full");
        p.description = "d".into();
        p.labels = vec!["a".into()];
        p.data_disk = Some("nvme0n1".into());
        p.ssh = Some(SshSection {
            host: Some("h".into()),
            port: Some(22),
            user: Some("root".into()),
            auth: Some(SshAuth::Key),
            key_path: Some("~/.ssh/id".into()),
            host_key_fingerprint: Some("SHA256:x".into()),
            jump: Some("x".into()),
            config: Some("~/.ssh/config".into()),
        });
        for o in FIELDS.iter().map(|f| f.option) {
            let raw = match by_option(o).unwrap().kind {
                Kind::Str => match o {
                    "mysql-ssl-mode" => "required",
                    "mysql-password-from" => "env",
                    "ssh-auth" => "key",
                    "db-ps-mode" => "disable",
                    "sla" => "p95<=20ms",
                    "on-step-error" => "continue",
                    "rate-dist" => "poisson",
                    "prepare" => "always",
                    _ => "x",
                },
                Kind::Int => "3",
                Kind::Float => "0.5",
                Kind::Bool => "on",
                Kind::StrList => "a,b",
                Kind::IntList => "1,2",
            };
            p.set_option(o, raw).unwrap_or_else(|e| panic!("{o}: {e}"));
        }
        p
    }

    fn leaf_keys(v: &Value, prefix: &str, out: &mut Vec<String>) {
        if let Value::Object(m) = v {
            for (k, x) in m {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                if x.is_object() {
                    leaf_keys(x, &key, out);
                } else {
                    out.push(key);
                }
            }
        }
    }

    #[test]
    fn table_names_every_field_and_nothing_else() {
        let v = serde_json::to_value(full_profile()).unwrap();
        let mut keys = Vec::new();
        leaf_keys(&v, "", &mut keys);
        keys.retain(|k| k != "schema_version");
        let mut table: Vec<String> = FIELDS.iter().map(|f| f.key.to_string()).collect();
        keys.sort();
        table.sort();
        assert_eq!(keys, table);
    }

    #[test]
    fn options_round_trip() {
        let p = full_profile();
        let mut q = Profile::named("other");
        for (o, v) in p.to_options() {
            q.set_option(o, &v).unwrap();
        }
        q.ssh = q.ssh.take();
        assert_eq!(p, q);
        assert!(p.to_options().contains(&("threads", "1,2".to_string())));
        assert!(p.to_options().contains(&("prepare", "always".to_string())));
    }

    /// docs/profiles.md lists every key with its option: the table cannot drift.
    #[test]
    fn docs_list_every_field_with_its_option() {
        let doc = include_str!("../../../docs/profiles.md");
        for f in FIELDS {
            let row = format!("| `{}` | `--{}` |", f.key, f.option);
            assert!(doc.contains(&row), "docs/profiles.md lacks the row {row}");
        }
    }

    #[test]
    fn bad_option_values_name_the_field() {
        let mut p = Profile::named("p");
        let e = p.set_option("threads", "1,x").unwrap_err();
        assert_eq!(e.field, "plan.threads");
        assert!(e.message.contains("'x' is not a whole number"), "{e}");
        let e = p.set_option("mysql-ssl-mode", "sometimes").unwrap_err();
        assert_eq!(e.field, "mysql.ssl_mode");
        assert!(by_option("table_size").is_some());
        assert!(p.set_option("no-such", "1").is_err());
    }
}
