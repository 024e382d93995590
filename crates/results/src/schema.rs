//! The results document's JSON Schema, derived from its types by `schemars`, and the
//! copy committed as `docs/results.schema.json` for readers outside Rust (a test fails
//! when the two differ; `cargo run -p dbdyno-results --example write-schema` writes
//! it again after an intended change).

use crate::ResultsDocument;

/// The committed schema's text.
pub const COMMITTED: &str = include_str!("../../../docs/results.schema.json");

/// Where the committed schema lives, from the workspace's root.
pub const COMMITTED_PATH: &str = "docs/results.schema.json";

/// The schema of [`ResultsDocument`] as this build's types make it.
pub fn schema() -> schemars::Schema {
    schemars::schema_for!(ResultsDocument)
}

/// [`schema`] as the committed file holds it: pretty JSON and a final newline.
pub fn schema_text() -> String {
    let mut text = serde_json::to_string_pretty(&schema()).expect("a schema is JSON");
    text.push('\n');
    text
}

/// `schema` with every object schema closed to the fields it names
/// (`unevaluatedProperties: false`). The committed schema leaves objects open, since
/// readers must ignore fields a newer version adds; tests validate what this version
/// writes against the closed form, so that a field written but not declared (or
/// renamed on one side only) fails.
///
/// A definition that another object extends (`$ref` beside `properties`: an enum
/// variant's tag around its fields) is closed by that object instead, which
/// `unevaluatedProperties` sees through.
pub fn closed(schema: &serde_json::Value) -> serde_json::Value {
    let mut extended = Vec::new();
    find_extended(schema, &mut extended);
    close(schema, &extended, None)
}

/// The definitions referenced by an object that adds properties of its own.
fn find_extended(v: &serde_json::Value, out: &mut Vec<String>) {
    use serde_json::Value;
    match v {
        Value::Object(map) => {
            if let (Some(Value::String(r)), true) =
                (map.get("$ref"), map.contains_key("properties"))
            {
                out.push(r.trim_start_matches("#/$defs/").to_string());
            }
            map.values().for_each(|x| find_extended(x, out));
        }
        Value::Array(items) => items.iter().for_each(|x| find_extended(x, out)),
        _ => {}
    }
}

fn close(v: &serde_json::Value, extended: &[String], def: Option<&str>) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Object(map) => {
            let mut out = serde_json::Map::new();
            for (k, x) in map {
                let inner = if k == "$defs" {
                    let defs = x.as_object().into_iter().flatten();
                    Value::Object(
                        defs.map(|(name, d)| (name.clone(), close(d, extended, Some(name))))
                            .collect(),
                    )
                } else {
                    close(x, extended, None)
                };
                out.insert(k.clone(), inner);
            }
            let open = def.is_some_and(|d| extended.iter().any(|e| e == d));
            if out.contains_key("properties") && !out.contains_key("additionalProperties") && !open
            {
                out.insert("unevaluatedProperties".into(), Value::Bool(false));
            }
            Value::Object(out)
        }
        Value::Array(items) => {
            Value::Array(items.iter().map(|x| close(x, extended, None)).collect())
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_schema_is_the_one_the_types_make() {
        // On failure: run the example named in the module's comment, and read the diff
        // (a removed or renamed field also needs a new RESULTS_SCHEMA_VERSION).
        assert!(
            schema_text() == COMMITTED,
            "{COMMITTED_PATH} differs from the types: run `cargo run -p dbdyno-results --example write-schema`"
        );
    }

    /// Every error of `doc` against the closed committed schema, one per line.
    fn errors(doc: &serde_json::Value) -> String {
        let schema: serde_json::Value = serde_json::from_str(COMMITTED).unwrap();
        let validator = jsonschema::validator_for(&closed(&schema)).unwrap();
        validator
            .iter_errors(doc)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn documents_of_earlier_versions_and_this_ones_writing_of_them_fit_the_schema() {
        for text in [
            include_str!("../../../tests/fixtures/results/v1_ladder.json"),
            include_str!("../../../tests/fixtures/results/v2_ladder.json"),
        ] {
            let doc: ResultsDocument = serde_json::from_str(text).unwrap();
            let written = serde_json::to_value(&doc).unwrap();
            assert_eq!(errors(&written), "", "as this version writes it");
        }
    }

    #[test]
    fn a_document_with_a_renamed_field_fails_the_schema() {
        let schema: serde_json::Value = serde_json::from_str(COMMITTED).unwrap();
        let validator = jsonschema::validator_for(&closed(&schema)).unwrap();
        let good = serde_json::json!({
            "schema_version": 2, "tool": "dbdyno", "plan": plan(), "outcome": outcome()
        });
        assert!(validator.is_valid(&good), "{:?}", validator.validate(&good));
        let mut renamed = good.clone();
        let o = renamed["outcome"].as_object_mut().unwrap();
        let steps = o.remove("steps").unwrap();
        o.insert("step_results".into(), steps);
        assert!(!validator.is_valid(&renamed));
        // An optional field renamed: absent is allowed, an unknown name is not.
        let mut renamed = good.clone();
        renamed["command_text"] = "dbdyno ladder".into();
        assert!(!validator.is_valid(&renamed));
        assert!(
            errors(&renamed).contains("command_text"),
            "{}",
            errors(&renamed)
        );
        // Deep inside: a step's settings (a variant of the tagged phase enum).
        let mut renamed = good.clone();
        let settings = renamed["plan"]["phases"][0]["settings"]
            .as_object_mut()
            .unwrap();
        let time = settings.remove("time_s").unwrap();
        settings.insert("time_secs".into(), time);
        assert!(
            errors(&renamed).contains("time_secs"),
            "{}",
            errors(&renamed)
        );
    }

    fn plan() -> serde_json::Value {
        use dbdyno_engine::{LadderSpec, Plan, Scenario};
        let ladder = LadderSpec {
            scenarios: vec![Scenario::OltpPointSelect],
            threads: vec![1, 4],
            ..LadderSpec::default()
        };
        let plan = Plan {
            connect: Default::default(),
            workload: Default::default(),
            phases: ladder.phases(),
            force: false,
            on_step_error: Default::default(),
        };
        serde_json::to_value(plan).unwrap()
    }

    fn outcome() -> serde_json::Value {
        serde_json::to_value(dbdyno_engine::RunOutcome::default()).unwrap()
    }
}
