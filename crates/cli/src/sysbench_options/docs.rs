//! The table as docs/cli.md shows it ("Every sysbench option"). A test checks the
//! docs hold exactly this text, so the list cannot drift from the parser.

use super::{
    Handling, ListedBy, NewName, SysbenchOption, HARDWARE_TESTS, NON_DATABASE_TESTS, OPTIONS,
};

/// The lines around the generated table in docs/cli.md.
pub const BEGIN: &str = "<!-- every-sysbench-option: generated from crates/cli/src/sysbench_options; `DBDYNO_WRITE_DOCS=1 cargo test -p dbdyno-cli sysbench_options` rewrites it -->";
pub const END: &str = "<!-- /every-sysbench-option -->";

/// The Markdown table: every option in the table's order, then the test names.
pub fn markdown() -> String {
    let mut out = String::from("| option | sysbench lists it in | verdict |\n|---|---|---|\n");
    for o in OPTIONS {
        out.push_str(&format!(
            "| `--{}` | {} | {} |\n",
            o.name,
            listed_by(o.listed_by),
            verdict(o)
        ));
    }
    for test in HARDWARE_TESTS {
        out.push_str(&format!(
            "| `{test}` (as the workload) | `sysbench --help` (Compiled-in tests) | implemented: `dbdyno {test}`, DB Dyno's native test (docs/hardware.md) |\n"
        ));
    }
    for (test, _) in NON_DATABASE_TESTS {
        let why = super::not_a_database_workload(test).expect("listed");
        out.push_str(&format!(
            "| `{test}` (as the workload) | `sysbench --help` (Compiled-in tests) | refused: {why} |\n"
        ));
    }
    out
}

fn listed_by(l: ListedBy) -> String {
    match l {
        ListedBy::Help => "`sysbench --help`".into(),
        ListedBy::ScriptHelp => "`sysbench <script> help`".into(),
        ListedBy::TestHelp(test) => format!("`sysbench {test} help`"),
        ListedBy::Older(versions) => format!("sysbench {versions}"),
    }
}

fn verdict(o: &SysbenchOption) -> String {
    match o.verdict {
        Handling::Implemented => "implemented".into(),
        Handling::HardwareTest => match o.listed_by {
            ListedBy::TestHelp(test) => format!("implemented by `dbdyno {test}`"),
            _ => "implemented".into(),
        },
        Handling::Renamed {
            to: NewName::Option(to),
        } => format!("renamed to `--{to}`, with sysbench's warning"),
        Handling::Renamed {
            to: NewName::Workload,
        } => "`--test=X` is the workload `X`, with sysbench's warning".into(),
        Handling::Refused { .. } | Handling::RefusedWithItsTest => {
            format!("refused: {}", o.refusal().expect("a refusal"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/cli.md");

    /// The text between the markers, and where it sits.
    fn generated_part(doc: &str) -> (usize, usize) {
        let begin = doc
            .find(BEGIN)
            .unwrap_or_else(|| panic!("docs/cli.md lacks the line {BEGIN}"))
            + BEGIN.len()
            + 1;
        let end = doc[begin..]
            .find(END)
            .unwrap_or_else(|| panic!("docs/cli.md lacks the line {END}"))
            + begin;
        (begin, end)
    }

    #[test]
    fn docs_table_matches_the_code() {
        let doc = std::fs::read_to_string(DOC_PATH).expect("docs/cli.md");
        let (begin, end) = generated_part(&doc);
        let want = markdown();
        if doc[begin..end] == want {
            return;
        }
        if std::env::var_os("DBDYNO_WRITE_DOCS").is_some_and(|v| v == "1") {
            let new = format!("{}{want}{}", &doc[..begin], &doc[end..]);
            std::fs::write(DOC_PATH, new).expect("writing docs/cli.md");
            return;
        }
        panic!(
            "docs/cli.md's \"Every sysbench option\" table differs from the code's; \
             rewrite it with DBDYNO_WRITE_DOCS=1 cargo test -p dbdyno-cli sysbench_options\n\
             --- docs ---\n{}--- code ---\n{want}",
            &doc[begin..end]
        );
    }

    #[test]
    fn every_row_is_one_line_a_table_can_hold() {
        for line in markdown().lines().skip(2) {
            assert_eq!(line.matches(" | ").count(), 2, "{line}");
        }
        for o in OPTIONS {
            let why = o.refusal().unwrap_or_default();
            assert!(!why.contains('|') && !why.contains('\n'), "--{}", o.name);
        }
    }
}
