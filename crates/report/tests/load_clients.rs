//! A run driven from two load clients (`two_clients.json`): every format shows each
//! client's share, the client-bound client by name and the partial step; a run from one
//! machine shows no such table.

mod support;

use std::process::Command;

use dbdyno_report::render::pdf::{self, PageSize, PdfOptions};
use dbdyno_report::render::{csv, html, json, markdown};
use support::report;

const SECOND: &str = "ssh://bench@client2:22";

#[test]
fn the_model_has_each_clients_share_and_names_the_partial_step() {
    let r = report("two_clients.json", None);
    let shares = &r.appendix[0].clients;
    assert_eq!(shares.len(), 8, "4 steps × 2 clients");
    let lost: Vec<_> = shares.iter().filter(|s| s.lost_after_s.is_some()).collect();
    assert_eq!(lost.len(), 1);
    assert_eq!(lost[0].step(), "oltp_write_only@128");
    assert_eq!(lost[0].flags(), "client-bound, lost at 21.5 s");
    let texts: Vec<&str> = r.warnings.iter().map(|w| w.text.as_str()).collect();
    assert!(
        texts.iter().any(|t| t.contains(
            "partial step oltp_write_only@128 (ssh://bench@client2:22 lost at 21.5 s: the SSH connection closed)"
        )),
        "{texts:#?}"
    );
    assert!(
        texts.iter().any(|t| t.contains("saturated")
            && t.contains("oltp_point_select@128 on ssh://bench@client2:22 (91")),
        "the client-bound warning names the client: {texts:#?}"
    );
    let one_machine = report("seed_000.json", None);
    assert!(one_machine.appendix[0].clients.is_empty());
}

#[test]
fn markdown_and_html_show_the_client_table() {
    let r = report("two_clients.json", None);
    let md = markdown::render(&r);
    assert!(
        md.contains("| Step | Client | Threads | TPS | QPS | p95 (ms) | Client CPU | Flags |"),
        "{md}"
    );
    let lost_row = md
        .lines()
        .find(|l| l.starts_with("| oltp_write_only@128 | ssh://bench@client2:22 |"))
        .expect("the lost client's row");
    assert!(
        lost_row.ends_with("| client-bound, lost at 21.5 s |"),
        "{lost_row}"
    );
    assert!(md.contains("| oltp_point_select@1 | local | 1 |"), "{md}");
    let page = html::render(&r);
    assert!(page.contains("<table class=\"clients\">"), "html table");
    assert!(page.contains(&format!("<td>{SECOND}</td>")));
    assert!(page.contains("<td>client-bound, lost at 21.5 s</td>"));
    let plain = report("seed_000.json", None);
    assert!(!markdown::render(&plain).contains("Load clients"));
    assert!(!html::render(&plain).contains("class=\"clients\""));
}

#[test]
fn csv_follows_each_merged_step_with_its_clients() {
    let r = report("two_clients.json", None);
    let text = csv::render(&r);
    let lines: Vec<&str> = text.lines().collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    for h in csv::CLIENT_HEADER {
        assert!(header.contains(&h), "{h} in {header:?}");
    }
    let rows: Vec<Vec<String>> = lines[1..].iter().map(|l| split_csv(l)).collect();
    assert_eq!(rows.len(), 4 * 3, "each step merged, then its two clients");
    let step = |scenario: &str, threads: &str| {
        rows.iter()
            .filter(|r| r[col("scenario")] == scenario && r[col("threads")] == threads)
            .collect::<Vec<_>>()
    };
    let last = step("oltp_write_only", "128");
    assert_eq!(last[0][col("client")], "merged");
    assert_eq!(last[0][col("client_flags")], "partial");
    assert_eq!(last[2][col("client")], SECOND);
    assert_eq!(last[2][col("client_flags")], "client-bound, lost at 21.5 s");
    // The clients' shares add up to the merged step's throughput.
    let tps = |r: &Vec<String>| r[col("tps")].parse::<f64>().unwrap();
    let sum = tps(last[1]) + tps(last[2]);
    assert!(
        (sum - tps(last[0])).abs() < 0.01,
        "{sum} vs {}",
        tps(last[0])
    );
    let plain = csv::render(&report("seed_000.json", None));
    assert!(!plain.lines().next().unwrap().contains("client_flags"));
}

/// One CSV line's fields, quotes undone (no field here holds a line break).
fn split_csv(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                fields.last_mut().unwrap().push('"');
            }
            '"' => quoted = !quoted,
            ',' if !quoted => fields.push(String::new()),
            c => fields.last_mut().unwrap().push(c),
        }
    }
    fields
}

#[test]
fn json_carries_the_shares() {
    let r = report("two_clients.json", None);
    let back = json::parse(&json::render(&r)).unwrap();
    assert_eq!(back.appendix[0].clients, r.appendix[0].clients);
    let v: serde_json::Value = serde_json::from_str(&json::render(&r)).unwrap();
    assert_eq!(v["appendix"][0]["clients"][7]["lost_after_s"], 21.5);
}

#[test]
fn pdf_shows_the_client_table() {
    let r = report("two_clients.json", None);
    let bytes = pdf::render(&r, &PdfOptions::new(PageSize::A4)).expect("pdf renders");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("clients.pdf");
    std::fs::write(&path, bytes).unwrap();
    let out = Command::new("pdftotext")
        .args(["-layout", path.to_str().unwrap(), "-"])
        .output()
        .expect("pdftotext (poppler-utils, bash scripts/deps.sh)");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Load clients (each client's share"), "{text}");
    let table = text
        .split("Load clients (each client's share")
        .nth(1)
        .unwrap();
    let lost_row = table
        .lines()
        .find(|l| l.contains("oltp_write_only@128") && l.contains("client2"))
        .unwrap_or_else(|| panic!("no row of the lost client:\n{table}"));
    assert!(lost_row.contains("lost at 21.5"), "{lost_row}");
}
