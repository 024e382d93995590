// History: every run, filtered by environment, state and date; open one to see its
// steps and charts, its report (summary, dyno curves, analysis) and export it; import
// sysbench logs as runs; the trends of the runs listed, with their change points.
import { useEffect, useMemo, useState } from "react";
import { commands, type CompareRequest, type CompareView, type RunDetail } from "../bindings";
import { call, message } from "../api";
import { Chart } from "../components/Chart";
import { Badge, ErrorNote, StepTable } from "../components/bits";
import { ExportBar } from "../components/ExportBar";
import { ImportLogs } from "../components/ImportLogs";
import { ReportView } from "../components/ReportView";
import { RunFilters, RunsTable } from "../components/RunsTable";
import { TrendPanel } from "../components/TrendPanel";
import { useRunList } from "../state/runs";
import { useApp } from "../state/app";
import { count } from "../state/format";

export function History() {
  const { filter, setFilter, rows, envs, error, setError, reload } = useRunList();
  const [open, setOpen] = useState<RunDetail | null>(null);
  const [importing, setImporting] = useState(false);
  const { env } = useApp();

  async function show(id: number) {
    try {
      setOpen(await call(commands.getRun(id)));
    } catch (e) {
      setError(message(e));
    }
  }

  async function remove(id: number) {
    if (!window.confirm(`Delete run #${id} from the history?`)) return;
    try {
      await call(commands.deleteRun(id));
      setOpen(null);
      await reload();
    } catch (e) {
      setError(message(e));
    }
  }

  return (
    <div className="stack">
      <div className="screen-head">
        <h1>History</h1>
        <span className="sub">{count(rows.length, "run")}</span>
        <span className="spacer" />
        <button className="btn" aria-expanded={importing} onClick={() => setImporting(!importing)} data-testid="import-logs-open">
          Import sysbench logs…
        </button>
      </div>
      <ErrorNote error={error} />
      {importing && <ImportLogs env={env} onImported={reload} onClose={() => setImporting(false)} />}
      <RunFilters filter={filter} envs={envs} onChange={setFilter} />
      <section className="panel">
        <RunsTable rows={rows} openId={open?.row.id ?? null} onOpen={show} />
      </section>
      <TrendPanel filter={filter} rows={rows} />
      {open && <RunPanel key={open.row.id} run={open} onDelete={() => remove(open.row.id)} />}
    </div>
  );
}

function RunPanel({ run, onDelete }: { run: RunDetail; onDelete: () => void }) {
  const x = useMemo(() => run.points.map((p) => p.t_s ?? 0), [run]);
  const tps = useMemo(() => [{ label: "TPS", color: "--chart-1", values: run.points.map((p) => p.tps) }], [run]);
  const latency = useMemo(
    () => [{ label: "p95", color: "--chart-3", values: run.points.map((p) => p.latency_ms), unit: " ms" }],
    [run],
  );
  // Monitored runs: the server's and MySQL's samples as the Run screen showed them.
  const server = useMemo(
    () => ({
      x: run.server.map((p) => p.t_s ?? 0),
      lines: [
        { label: "server CPU", color: "--chart-4", values: run.server.map((p) => p.cpu_pct), unit: "%" },
        { label: "data disk util", color: "--chart-2", values: run.server.map((p) => p.disk_util_pct), unit: "%" },
      ],
    }),
    [run],
  );
  const mysql = useMemo(
    () => ({
      x: run.mysql.map((p) => p.t_s ?? 0),
      lines: [
        { label: "queries/s", color: "--chart-2", values: run.mysql.map((p) => p.qps) },
        { label: "transactions/s", color: "--chart-1", values: run.mysql.map((p) => p.tps) },
      ],
    }),
    [run],
  );
  // The run's own report: one run, so no baseline and no threshold.
  const request = useMemo<CompareRequest>(() => ({ run_ids: [run.row.id], baseline: null, threshold_pct: null }), [run.row.id]);
  return (
    <section className="panel stack" aria-label={`Run ${run.row.id}`} data-testid="run-detail">
      <div className="row">
        <h2>Run #{run.row.id}</h2>
        <Badge kind={run.row.state} />
        <span className="sub">{run.row.env} — {run.row.command} — {run.row.started}</span>
        <span className="spacer" style={{ flex: 1 }} />
        <button className="btn danger" onClick={onDelete}>Delete run</button>
      </div>
      {run.command_line !== run.row.command && (
        <code className="sub" style={{ overflowWrap: "anywhere" }} data-testid="run-command-line">{run.command_line}</code>
      )}
      {run.failure && <ErrorNote error={run.failure} />}
      <ExportBar request={request} label="Export report" />
      <div className="grid-2">
        <Chart title="Throughput per second" x={x} lines={tps} testId="history-chart" />
        <Chart title="Latency p95 (ms)" x={x} lines={latency} />
        {run.server.length > 0 && (
          <Chart title="Server CPU and data disk (%)" x={server.x} lines={server.lines} testId="history-chart-server" />
        )}
        {run.mysql.length > 0 && (
          <Chart title="MySQL status (per second)" x={mysql.x} lines={mysql.lines} testId="history-chart-mysql" />
        )}
      </div>
      <StepTable steps={run.steps} caption={`Steps of run ${run.row.id}`} />
      {run.plan_settings.length > 0 && (
        <details data-testid="run-plan">
          <summary>Plan as stored ({run.plan_settings.length} settings)</summary>
          <table className="data" aria-label={`Plan of run ${run.row.id}`}>
            <tbody>
              {run.plan_settings.map((p, i) => (
                <tr key={i} data-setting={p.name}>
                  <th scope="row">{p.name}</th>
                  <td>{p.value}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
      {run.warnings.length > 0 && (
        <details>
          <summary>Warnings ({run.warnings.length})</summary>
          <ul>{run.warnings.map((w, i) => <li key={i}>{w}</li>)}</ul>
        </details>
      )}
      <RunReport request={request} />
    </section>
  );
}

/** The run's report as the exports write it, behind a disclosure: History stays a list. */
function RunReport({ request }: { request: CompareRequest }) {
  const [view, setView] = useState<CompareView | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    call(commands.compareRuns(request))
      .then((v) => live && setView(v))
      .catch((e) => live && setError(message(e)));
    return () => {
      live = false;
    };
  }, [request]);
  return (
    <details data-testid="run-report">
      <summary>Report: summary, dyno curves, matrix and analysis</summary>
      <ErrorNote error={error} />
      {view && <ReportView view={view} />}
    </details>
  );
}
