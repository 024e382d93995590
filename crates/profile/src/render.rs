//! Writing a profile as TOML: sections in a fixed order, keys in [`crate::fields`]
//! order, optional comments after values (the seed config's inline comments survive an
//! import). There is no field that could hold a secret, so nothing to filter here.

use std::collections::HashMap;

use serde_json::Value;

use crate::fields::FIELDS;
use crate::{Profile, SCHEMA_VERSION};

/// Comments to write after a key's value, by dotted key.
pub type Comments = HashMap<String, String>;

pub fn to_toml(p: &Profile, comments: &Comments) -> String {
    let v = serde_json::to_value(p).unwrap_or(Value::Null);
    let mut out = format!("schema_version = {SCHEMA_VERSION}\n");
    let mut section: Option<&str> = None;
    for f in FIELDS {
        let (sec, key) = match f.key.split_once('.') {
            Some((s, k)) => (Some(s), k),
            None => (None, f.key),
        };
        let value = match sec {
            Some(s) => v.get(s).and_then(|t| t.get(key)),
            None => v.get(key),
        };
        let Some(value) = value.filter(|x| !x.is_null()) else {
            continue;
        };
        if sec != section {
            if let Some(s) = sec {
                out.push_str(&format!("\n[{s}]\n"));
            }
            section = sec;
        }
        out.push_str(&format!("{key} = {}", toml_value(value)));
        if let Some(c) = comments.get(f.key) {
            out.push_str(&format!("  # {}", c.replace('\n', " ")));
        }
        out.push('\n');
    }
    for c in &p.clients {
        out.push_str(&client_table(c));
    }
    out
}

/// One `[[clients]]` table: its URL, then the `[ssh]` keys it sets, in the table's order.
fn client_table(c: &crate::ClientEntry) -> String {
    let mut out = format!(
        "\n[[clients]]\nurl = {}\n",
        toml::Value::String(c.url.clone())
    );
    let v = serde_json::to_value(&c.ssh).unwrap_or(Value::Null);
    for f in FIELDS {
        let Some(key) = f.key.strip_prefix("ssh.") else {
            continue;
        };
        if let Some(value) = v.get(key).filter(|x| !x.is_null()) {
            out.push_str(&format!("{key} = {}\n", toml_value(value)));
        }
    }
    out
}

fn toml_value(v: &Value) -> String {
    match v {
        Value::String(s) => toml::Value::String(s.clone()).to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::Array(a) => format!(
            "[{}]",
            a.iter().map(toml_value).collect::<Vec<_>>().join(", ")
        ),
        Value::Null | Value::Object(_) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rendered_profile_loads_back_equal() {
        let mut p = Profile::named("idc");
        p.description = "the data centre \"A\"".into();
        p.labels = vec!["idc".into(), "nvme".into()];
        p.mysql.host = Some("10.0.0.5".into());
        p.mysql.port = Some(3306);
        p.plan.threads = Some(vec![1, 8, 16]);
        p.plan.prepare = Some(dbdyno_engine::PrepareMode::Always);
        p.plan.rate = Some(12.5);
        p.workload.table_size = Some(1_000_000);
        let mut c = Comments::new();
        c.insert("workload.table_size".into(), "rows per table".into());
        let text = to_toml(&p, &c);
        assert!(
            text.contains("table_size = 1000000  # rows per table\n"),
            "{text}"
        );
        let back = crate::load_str(&text, "t.toml", "t").unwrap();
        assert_eq!(back.profile, p);
    }
}
