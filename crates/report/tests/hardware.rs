//! The environments' hardware records in a report: the table beside the configuration,
//! its ratios to the baseline, their use in the bottleneck analysis, in every format.

mod support;

use dbdyno_history::hardware::HardwareRecord;
use dbdyno_report::model::hardware::attach;
use dbdyno_report::model::BottleneckClass;
use dbdyno_report::render::{csv, html, markdown};
use support::{fixtures, report};

fn records() -> Vec<HardwareRecord> {
    let text = std::fs::read_to_string(fixtures().join("three_envs_hardware.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn with_hardware() -> dbdyno_report::Report {
    let mut r = report("three_envs.json", Some("idc"));
    let records = records();
    attach(&mut r, &|env| {
        records.iter().find(|h| h.record.env == env).cloned()
    });
    r
}

#[test]
fn the_table_has_each_environments_figures_and_ratio_to_the_baseline() {
    let r = with_hardware();
    let h = r.hardware.as_ref().expect("a hardware section");
    let writes = h
        .rows
        .iter()
        .find(|row| row.label == "Random write IOPS")
        .unwrap();
    let hw = r.envs.iter().position(|e| e.name == "华为云").unwrap();
    let ali = r.envs.iter().position(|e| e.name == "ali_cloud").unwrap();
    assert_eq!(writes.values[0], Some(10747.29));
    assert_eq!(
        writes.ratios[0], None,
        "the baseline has no ratio to itself"
    );
    assert_eq!(format!("{:.2}", writes.ratios[hw].unwrap()), "0.31");
    assert_eq!(writes.values[ali], None);
    assert!(h.envs[ali].is_none());
}

#[test]
fn io_and_cpu_bound_steps_are_explained_by_the_ratios() {
    let r = with_hardware();
    let hw = r.envs.iter().position(|e| e.name == "华为云").unwrap();
    let mut explained = 0;
    for s in &r.scenarios {
        for e in &s.envs {
            let said = e.bottleneck.evidence.contains("the baseline's");
            match e.bottleneck.class {
                BottleneckClass::IoBound if e.env == hw => {
                    assert!(
                        e.bottleneck
                            .evidence
                            .contains("random write IOPS are 0.31× the baseline's"),
                        "{}",
                        e.bottleneck.evidence
                    );
                    explained += 1;
                }
                BottleneckClass::CpuBound if e.env == hw => {
                    assert!(
                        e.bottleneck
                            .evidence
                            .contains("CPU events/s are 1.20× the baseline's"),
                        "{}",
                        e.bottleneck.evidence
                    );
                    explained += 1;
                }
                // The baseline and an environment without a record have no ratio.
                _ if e.env != hw => assert!(!said, "{}", e.bottleneck.evidence),
                _ => {}
            }
        }
    }
    assert!(
        explained > 0,
        "no IO- or CPU-bound step of 华为云 in the fixture"
    );
}

#[test]
fn every_format_shows_the_table() {
    let r = with_hardware();
    let md = markdown::render(&r);
    assert!(md.contains("## Server hardware"), "{md}");
    assert!(
        md.contains("| Random write IOPS | 10,747.29 | 3,331.66 (0.31×) | — |"),
        "{md}"
    );
    let page = html::render(&r);
    assert!(page.contains("<h2>Server hardware</h2>") && page.contains("3,331.66 (0.31×)"));
    let table = csv::render(&r);
    let header = table.lines().next().unwrap();
    assert!(
        header.contains("hw_random_write_iops") && header.contains("hw_record_id"),
        "{header}"
    );
    assert!(table.contains("3331.66"));
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["hardware"]["rows"][1]["label"], "Random write IOPS");
    let pdf = dbdyno_report::render::pdf::render(&r, &Default::default()).unwrap();
    assert!(pdf.starts_with(b"%PDF"));
}

#[test]
fn no_record_no_section() {
    let mut r = report("three_envs.json", Some("idc"));
    attach(&mut r, &|_| None);
    assert!(r.hardware.is_none());
    assert!(!markdown::render(&r).contains("Server hardware"));
    assert!(serde_json::to_value(&r).unwrap().get("hardware").is_none());
}
