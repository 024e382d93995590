//! A stored run as people read it: the text `dbdyno runs show` prints (each step in
//! sysbench's summary layout with its 95% intervals and CV, and the server figures
//! monitoring stored), and the
//! document `dbdyno runs export --json` writes.
//!
//! Non-goals: no reports (the report crate compares runs), no storage.

use dbdyno_engine::stats::LatencyHistogram;
use dbdyno_sysbench_text as sysbench_text;

use crate::{RunSummary, StoredRun};

/// Version of the `runs export --json` document (docs/history.md). Version 2: each
/// step's result carries its `confidence`.
pub const EXPORT_SCHEMA_VERSION: u32 = 2;

/// What `runs show` says of a step without per-second records (an imported log run
/// without `--report-interval`).
const NO_CONFIDENCE: &str = "Confidence (95%): none: the source has no per-second (interval) \
lines, so no interval is given\n\n";

/// The whole run (intervals, histograms, samples, snapshots) as one versioned document.
pub fn export_document(run: &StoredRun) -> serde_json::Value {
    serde_json::json!({
        "schema_version": EXPORT_SCHEMA_VERSION,
        "tool": "dbdyno",
        "tool_version": env!("CARGO_PKG_VERSION"),
        "run": run,
    })
}

/// `dbdyno runs list`: a header and one line per run, newest first as given.
pub fn list_lines(runs: &[RunSummary]) -> Vec<String> {
    let mut out = vec![format!(
        "{:>5}  {:<20} {:<12} {:<20} {:>5} {:>12}  command / scenarios",
        "id", "env", "state", "started (UTC)", "steps", "max tps"
    )];
    out.extend(runs.iter().map(|r| {
        format!(
            "{:>5}  {:<20} {:<12} {:<20} {:>5} {:>12}  {} {}",
            r.id,
            r.env,
            r.state.as_str(),
            r.started_at.replace('T', " ").trim_end_matches('Z'),
            r.steps,
            r.max_tps.map_or("-".into(), |t| format!("{t:.2}")),
            crate::command_name(&r.command),
            r.scenarios.join(",")
        )
    }));
    out
}

/// A run as text: its header, then each step in sysbench's summary layout with our
/// extra figures (every figure stored), then warnings.
pub fn run_text(run: &StoredRun) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "Run {} — env {} — {}\n",
        run.id, run.env, run.state
    ));
    s.push_str(&format!(
        "  command:  {} ({})\n",
        run.command,
        run.source.as_str()
    ));
    s.push_str(&format!("  started:  {}\n", run.started_at));
    if let Some(end) = run.ended_at_ms {
        s.push_str(&format!("  ended:    {}\n", crate::time::rfc3339(end)));
    }
    if !run.labels.is_empty() {
        s.push_str(&format!("  labels:   {}\n", run.labels.join(", ")));
    }
    match (&run.failure, run.state) {
        // A partial run's failure is its failed steps, one line each.
        (Some(f), crate::RunState::Partial) => {
            s.push_str("  failed steps (not measured; the others ran):\n");
            for line in f.lines() {
                s.push_str(&format!("    {line}\n"));
            }
        }
        (Some(f), _) => s.push_str(&format!("  failure:  {f}\n")),
        (None, _) => {}
    }
    s.push_str(&format!("  steps:    {}\n", run.steps.len()));
    for step in &run.steps {
        let r = &step.result;
        s.push_str(&format!(
            "\n=== step {}: {}{}{}{} ===\n",
            step.index + 1,
            dbdyno_engine::threads_label(r.scenario, r.threads),
            r.repeat
                .label()
                .map(|l| format!(", {l}"))
                .unwrap_or_default(),
            if r.cancelled { " (cancelled)" } else { "" },
            crate::clients::partial_mark(r)
        ));
        if let Some(open_loop) = &r.open_loop {
            s.push_str(&open_loop.line());
            s.push('\n');
        }
        for i in &r.intervals {
            s.push_str(&sysbench_text::format_interval(i));
            s.push('\n');
            if let Some(queue) = sysbench_text::format_interval_queue(i) {
                s.push_str(&queue);
                s.push('\n');
            }
        }
        if !r.has_totals() {
            // A log cut off before sysbench's summary: printing one would show zeros.
            s.push_str("(no summary in the source: totals, rates and latency are unknown)\n");
            continue;
        }
        // Imports without a --histogram block have none to print.
        let hist = if r.histogram.is_empty() {
            None
        } else {
            LatencyHistogram::from_base64(&r.histogram).ok()
        };
        // The summary shows the step's intervals; a step without per-second records
        // has none, and that is said rather than left out silently.
        s.push_str(&sysbench_text::format_summary(r, hist.as_ref()));
        if r.confidence_or_computed().is_none() {
            s.push_str(NO_CONFIDENCE);
        }
        s.push_str(&crate::clients::clients_text(r));
        s.push_str(&server_figures(run, step.index));
    }
    if !run.warnings.is_empty() {
        s.push_str("\nWarnings:\n");
        for w in &run.warnings {
            s.push_str(&format!("  {}\n", w.text));
        }
    }
    s
}

/// The server and MySQL figures monitoring stored for step `index` (as `--json` has
/// them), in a few lines; empty when the run was not monitored.
fn server_figures(run: &StoredRun, index: u32) -> String {
    let Some(step) = run
        .monitoring
        .as_ref()
        .and_then(|m| m.steps.iter().find(|x| x.step == index as usize))
    else {
        return String::new();
    };
    let f = |v: Option<f64>, digits: usize| {
        v.map_or_else(|| "—".to_string(), |x| format!("{x:.digits$}"))
    };
    let mut out = String::from("Server during the step:\n");
    if let Some(os) = &step.os {
        out.push_str(&format!(
            "    CPU busy:                          {}% avg, {}% max (iowait {}%, steal {}%)\n",
            f(os.cpu_util_avg, 1),
            f(os.cpu_util_max, 1),
            f(os.cpu_iowait_avg, 1),
            f(os.cpu_steal_avg, 1)
        ));
        for d in &os.disks {
            out.push_str(&format!(
                "    disk {:<30}util {}% avg, {}% max, r/s {}, w/s {}, await {} ms\n",
                d.name,
                f(Some(d.util_pct_avg), 1),
                f(Some(d.util_pct_max), 1),
                f(Some(d.r_per_s_avg), 1),
                f(Some(d.w_per_s_avg), 1),
                f(Some(d.await_ms_avg), 2)
            ));
        }
    } else if let Some(why) = &step.os_missing {
        out.push_str(&format!("    OS figures: none ({why})\n"));
    }
    if let Some(my) = &step.mysql {
        out.push_str(&format!(
            "    MySQL:                             {} questions/s, {} threads running avg ({} max), buffer pool hit {}%, row lock waits {}\n",
            f(Some(my.questions_per_s_avg), 0),
            f(Some(my.threads_running_avg), 1),
            f(Some(my.threads_running_max as f64), 0),
            f(my.hit_rate_pct, 2),
            f(Some(my.row_lock_waits as f64), 0)
        ));
    }
    out.push_str(&format!(
        "    samples:                           {} of {} expected\n\n",
        f(step.os.as_ref().map(|o| o.samples as f64), 0),
        step.expected_samples
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_monitored_step_shows_its_server_figures() {
        let mut run: StoredRun = serde_json::from_value(serde_json::json!({
            "id": 1, "env": "e", "source": "dbdyno", "command": "ladder", "state": "complete",
            "started_at": "2026-01-01T00:00:00Z", "started_at_ms": 0, "ended_at_ms": null,
            "tool_version": "0", "labels": [], "profile": null, "plan": null,
            "environment": null, "monitoring": null, "prepare": null, "prewarm": null,
            "failure": null, "steps": [], "warnings": [], "server_samples": [], "mysql_samples": []
        }))
        .unwrap();
        assert_eq!(server_figures(&run, 0), "", "not monitored: nothing");
        // A real monitored step's record (tests/fixtures/results), its figures set.
        let mut m = crate::tests::fixture_monitoring();
        let step = &mut m.steps[0];
        let os = step.os.as_mut().unwrap();
        (os.cpu_util_avg, os.samples) = (Some(72.25), 2);
        os.disks[0].name = "vda".into();
        os.disks[0].util_pct_avg = 0.2;
        step.mysql.as_mut().unwrap().questions_per_s_avg = 21697.0;
        step.expected_samples = 2;
        run.monitoring = Some(m);
        let t = server_figures(&run, 0);
        assert!(t.contains("CPU busy:") && t.contains("72.2% avg"), "{t}");
        assert!(t.contains("disk vda") && t.contains("util 0.2% avg"), "{t}");
        assert!(t.contains("21697 questions/s"), "{t}");
        assert!(t.contains("2 of 2 expected"), "{t}");
        assert_eq!(
            server_figures(&run, 2),
            "",
            "a step the record does not have"
        );
    }
}
