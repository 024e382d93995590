// Run: live per-second charts (TPS/QPS, latency, server CPU and disk, client CPU, and
// MySQL's own QPS/TPS), the step table filling in, progress with ETA, cool-down, errors
// and reconnects, Cancel; at the end of a run the history did not fully take, Rust's
// "NOT IN THE HISTORY" line and the spill file; a refused start with its fixes as
// buttons and Start run beside them.
import { useEffect, useMemo, useState } from "react";
import { commands } from "../bindings";
import { call, message } from "../api";
import { Chart } from "../components/Chart";
import { Badge, ErrorNote, StepTable } from "../components/bits";
import { CheckFixes } from "../components/CheckFixes";
import { StartRunButton } from "../components/StartRun";
import { useApp } from "../state/app";
import { count, duration, num } from "../state/format";
import { isFinal } from "../state/run";
import { useChecks } from "../state/useChecks";

export function Run() {
  const { run, go } = useApp();
  const [error, setError] = useState<string | null>(null);
  const s = run.snapshot;
  const tpsLines = useMemo(
    () => [
      { label: "TPS", color: "--chart-1", values: run.series.tps },
      { label: "QPS", color: "--chart-2", values: run.series.qps },
    ],
    [run.series],
  );
  const latLines = useMemo(() => [{ label: "p95 latency", color: "--chart-3", values: run.series.latency, unit: " ms" }], [run.series]);
  const serverLines = useMemo(
    () => [
      { label: "server CPU", color: "--chart-4", values: run.server.cpu, unit: "%" },
      { label: "data disk util", color: "--chart-2", values: run.server.disk, unit: "%" },
    ],
    [run.server],
  );
  const clientLines = useMemo(() => [{ label: "client CPU", color: "--chart-1", values: run.client.cpu, unit: "%" }], [run.client]);
  const mysqlLines = useMemo(
    () => [
      { label: "queries/s", color: "--chart-2", values: run.mysql.qps },
      { label: "transactions/s", color: "--chart-1", values: run.mysql.tps },
    ],
    [run.mysql],
  );

  if (!s && run.refused) return <Refused why={run.refused} />;
  if (!s) {
    return (
      <div className="stack">
        <div className="screen-head"><h1>Run</h1></div>
        <div className="panel sub">
          {run.token ? "Starting…" : "No run yet. Plan one, then press Start run."}{" "}
          {!run.token && <button className="link" onClick={() => go("plan")}>Go to Plan</button>}
        </div>
      </div>
    );
  }
  const final = isFinal(s);
  const current = s.current_step !== null ? s.steps[s.current_step] : null;
  return (
    <div className="stack">
      <div className="screen-head">
        <h1>Run {s.run_id !== null ? `#${s.run_id}` : ""}</h1>
        <Badge kind={s.status} />
        <span className="sub">{s.env}</span>
        <span className="spacer" />
        {!final && (
          <button
            className="btn danger"
            disabled={s.status === "cancelling"}
            onClick={() => call(commands.cancelRun()).catch((e) => setError(message(e)))}
            data-testid="cancel-run"
          >
            {s.status === "cancelling" ? "Cancelling…" : "Cancel run"}
          </button>
        )}
        {final && <button className="btn" onClick={() => go("history")}>Open in History</button>}
        {final && <button className="btn primary" onClick={() => go("plan")}>Plan another run</button>}
      </div>
      <ErrorNote error={error ?? s.failure} />
      {s.failed_steps_note && (
        <div className="notice warn" role="status" data-testid="run-failed-steps">
          {s.failed_steps_note}
        </div>
      )}
      {s.history_note && <div className="notice warn">{s.history_note}</div>}
      {s.not_in_history && (
        <div className="notice error" role="alert" data-testid="run-not-in-history">
          <p>{s.not_in_history}</p>
          {s.spill_file && (
            <p>
              Spill file: <code className="mono" data-testid="run-spill-file">{s.spill_file}</code>
            </p>
          )}
        </div>
      )}
      {s.silence && (
        <div className="notice warn" role="status" data-testid="run-silence">
          {s.silence.text}
        </div>
      )}
      <section className="panel stack" aria-label="Progress">
        <div className="row" data-testid="run-phase">
          <strong>
            Phase {s.phase_number}/{s.phase_count}: {s.phase_label}
          </strong>
          {s.cooldown_left_s !== null && <span className="badge cooling_down">cool-down {duration(s.cooldown_left_s)} left</span>}
          {s.prepare && (
            <span className="sub" data-testid="run-prepare">
              loading rows {num(s.prepare.rows_done, 0)} / {num(s.prepare.rows_total, 0)}, {num(s.prepare.rows_per_s, 0)} rows/s
              {s.prepare.eta_s !== null ? `, ${duration(s.prepare.eta_s)} to go` : ""}
            </span>
          )}
          {s.connecting && (
            <span className="sub" data-testid="run-connecting">
              opening connections {num(s.connecting.opened, 0)} / {num(s.connecting.threads, 0)} ({duration(s.connecting.elapsed_s)}
              {(s.connecting.retries ?? 0) > 0 ? `, ${num(s.connecting.retries, 0)} retried` : ""})
            </span>
          )}
        </div>
        {s.prepare && (
          <div className="progress" role="progressbar" aria-label="Rows loaded" aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(s.prepare.pct ?? 0)}>
            <div style={{ width: `${s.prepare.pct ?? 0}%` }} />
          </div>
        )}
        <div className="progress" role="progressbar" aria-label="Progress of the whole plan" aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(s.progress_pct ?? 0)}>
          <div style={{ width: `${s.progress_pct ?? 0}%` }} />
        </div>
        <div className="row sub">
          <span data-testid="run-progress">{num(s.progress_pct, 0)}%</span>
          <span>elapsed {duration(s.elapsed_s)}</span>
          <span>ETA {final ? "—" : duration(s.eta_s)}</span>
          {current && s.step_elapsed_s !== null && (
            <span>
              step {current.index + 1}: {duration(s.step_elapsed_s)} of {duration(s.step_planned_s)}
            </span>
          )}
        </div>
      </section>
      <div className="kpis">
        <Kpi label="TPS (last second)" value={num(run.series.tps.at(-1), 1)} />
        <Kpi label="QPS (last second)" value={num(run.series.qps.at(-1), 0)} />
        <Kpi label="p95 latency" value={`${num(run.series.latency.at(-1), 2)} ms`} />
        <Kpi label="Errors" value={num(s.errors_total, 0)} warn={(s.errors_total ?? 0) > 0} />
        <Kpi label="Reconnects" value={num(s.reconnects_total, 0)} warn={(s.reconnects_total ?? 0) > 0} />
      </div>
      <div className="grid-2">
        <Chart title="Throughput (per second)" x={run.series.t} lines={tpsLines} testId="chart-tps" />
        <Chart title="Latency p95 (ms)" x={run.series.t} lines={latLines} testId="chart-latency" />
        <Chart title="Server CPU and data disk (%)" x={run.server.t} lines={serverLines} testId="chart-server" />
        <Chart title="Client CPU (% of all cores)" x={run.client.t} lines={clientLines} testId="chart-client" />
        <Chart title="MySQL status, as the server counts it (per second)" x={run.mysql.t} lines={mysqlLines} testId="chart-mysql" wide />
      </div>
      <section className="panel">
        <h2>Steps</h2>
        <StepTable steps={s.steps} caption="Steps of this run" />
      </section>
      <section className="panel">
        <h2>Log</h2>
        <div className="log mono" role="log" aria-live="polite">
          {run.log.map((l, i) => (
            <div key={i} className={l.level}>
              [{duration(l.t_s)}] {l.text}
            </div>
          ))}
        </div>
      </section>
    </div>
  );
}

/** A refused start: Rust's reason, the failed checks' fixes as buttons (the checks run
 *  for this plan if they have not been), and Start run, one click away once they pass. */
function Refused({ why }: { why: string }) {
  const { go, env, form, checks } = useApp();
  const { view, busy, error, applied, runChecks, applyFix, planFix } = useChecks();
  const [startError, setStartError] = useState<string | null>(null);
  const checkedThisPlan = checks !== null && checks.env === env && JSON.stringify(checks.form) === JSON.stringify(form);
  useEffect(() => {
    if (!checkedThisPlan && form) void runChecks(form);
    // Once per refusal: the checks' own buttons run them again after a fix.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [why]);
  const failed = view ? view.checks.filter((c) => c.verdict === "fail") : [];
  // Nothing ran, so nothing "failed": the start was refused, and once a fix makes this
  // plan's checks pass the screen is ready for the next start.
  const cleared = view !== null && checkedThisPlan && !view.start_refusal;
  return (
    <div className="stack">
      <div className="screen-head">
        <h1>Run</h1>
        <Badge kind={cleared ? "ready" : "refused"}>{cleared ? "ready to start" : "not started"}</Badge>
        <span className="spacer" />
        <StartRunButton ready={!busy && checkedThisPlan} onError={setStartError} />
      </div>
      <div className={cleared ? "notice" : "notice error"} role={cleared ? "status" : "alert"} data-testid="run-refused">
        <p>
          {cleared
            ? "The last start was refused; this plan's checks pass now."
            : failed.length > 0
              ? `The run did not start: ${count(failed.length, "check")} of this plan ${failed.length === 1 ? "fails" : "fail"}. The fixes are below.`
              : "The run did not start."}
        </p>
        {/* The refusal in the words the command line prints, fix commands included: behind
            a disclosure when the fixes are shown as buttons below. */}
        {failed.length > 0 || cleared ? (
          <details>
            <summary>The refusal as the command line prints it</summary>
            <pre>{why}</pre>
          </details>
        ) : (
          <pre>{why}</pre>
        )}
      </div>
      <ErrorNote error={error ?? startError} />
      {applied && <div className="notice ok" role="status" data-testid="fix-applied">{applied}</div>}
      {busy && <div className="panel sub">Checking…</div>}
      {failed.length > 0 && (
        <section className="panel stack" aria-label="Fixes" data-testid="refused-fixes">
          {failed.map((c) => (
            <div className="check" key={c.id} data-testid={`check-${c.id}`} data-verdict={c.verdict}>
              <div><Badge kind={c.verdict} /></div>
              <div className="what">
                <strong>{c.title}</strong>
                <div>{c.seen}</div>
                {c.fix_text && <div>Fix: {c.fix_text}</div>}
                <CheckFixes check={c} busy={busy} onPlanFix={planFix} onApply={(row) => applyFix(row)} />
              </div>
            </div>
          ))}
        </section>
      )}
      {view && checkedThisPlan && !view.start_refusal && (
        <div className="notice ok" role="status" data-testid="refused-cleared">
          The checks pass for this plan now: press Start run.
        </div>
      )}
      <div className="row">
        <button className="btn" onClick={() => go("plan")}>Back to Plan</button>
        <button className="btn" onClick={() => go("checks")}>Open Checks</button>
      </div>
    </div>
  );
}

function Kpi({ label, value, warn }: { label: string; value: string; warn?: boolean }) {
  return (
    <div className="kpi">
      <div className="label">{label}</div>
      <div className="value" style={warn ? { color: "var(--warn)" } : undefined}>{value}</div>
    </div>
  );
}
