//! The one sentence that ends a run the history did not fully take: what is missing,
//! why, where the results are, and the command that brings them in. Made here so that
//! the CLI's last line and the app's Run screen say the same words.

use dbdyno_engine::wording::{count, plural};

use super::history::{Recorded, Spilled};

impl Spilled {
    /// "NOT IN THE HISTORY: …", the spill file's path last (scripts take the last word).
    /// `recorded` is the run's record, to say how much of the run the history holds.
    pub fn not_in_history_line(&self, recorded: Option<&Recorded>) -> String {
        let partial = match (self.history_run_id, recorded) {
            (Some(id), Some(Recorded::Stored { report, .. })) => format!(
                "not fully in the history (run {id} holds {} of its {})",
                report.steps_written,
                count(self.steps as u32, "step")
            ),
            _ => "not in the history".to_string(),
        };
        match &self.path {
            Some(p) => format!(
                "NOT IN THE HISTORY: this run is {partial}: {}; its {} {} in the spill file {}; to bring {} in: dbdyno import results {}",
                self.why,
                count(self.steps as u32, "step"),
                plural(self.steps as f64, "is"),
                p.display(),
                if self.steps == 1 { "it" } else { "them" },
                p.display()
            ),
            None => format!(
                "NOT IN THE HISTORY: this run is {partial}: {}; and no spill file could be written ({}): its results are only in the output above",
                self.why,
                self.not_written.as_deref().unwrap_or("no place took it")
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbdyno_history::{RunState, WriterReport};
    use std::path::PathBuf;

    fn spilled(path: Option<&str>, history_run_id: Option<i64>) -> Spilled {
        Spilled {
            why: "database or disk is full".into(),
            path: path.map(PathBuf::from),
            not_written: path
                .is_none()
                .then(|| "no space left on device".to_string()),
            steps: 3,
            history_run_id,
        }
    }

    #[test]
    fn a_spilled_run_names_its_file_and_the_import_command() {
        let line = spilled(Some("/spill/run-a.json"), None).not_in_history_line(None);
        assert_eq!(
            line,
            "NOT IN THE HISTORY: this run is not in the history: database or disk is full; its 3 steps are in the spill file /spill/run-a.json; to bring them in: dbdyno import results /spill/run-a.json"
        );
    }

    #[test]
    fn a_partial_record_says_how_many_steps_the_history_holds() {
        let recorded = Recorded::Stored {
            report: WriterReport {
                run_id: 7,
                steps_written: 1,
                errors: vec![],
            },
            state: RunState::Failed,
        };
        let line = spilled(Some("/spill/run-b.json"), Some(7)).not_in_history_line(Some(&recorded));
        assert!(
            line.starts_with("NOT IN THE HISTORY: this run is not fully in the history (run 7 holds 1 of its 3 steps): database or disk is full;"),
            "{line}"
        );
        assert!(
            line.ends_with("dbdyno import results /spill/run-b.json"),
            "{line}"
        );
    }

    #[test]
    fn no_spill_file_says_why_and_where_the_results_are() {
        let line = spilled(None, None).not_in_history_line(None);
        assert!(
            line.contains("no spill file could be written (no space left on device)"),
            "{line}"
        );
        assert!(!line.contains("import results"), "{line}");
    }
}
