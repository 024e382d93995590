// History: every run, filtered by environment, state and date; open one to see its
// steps and charts.
import { useEffect, useMemo, useState } from "react";
import { commands, type RunDetail, type RunFilter, type RunRow, type RunStateName } from "../bindings";
import { call, message } from "../api";
import { Chart } from "../components/Chart";
import { Badge, ErrorNote, StepTable } from "../components/bits";
import { duration, num } from "../state/format";

const STATES: RunStateName[] = ["complete", "cancelled", "failed", "interrupted", "running"];

export function History() {
  const [filter, setFilter] = useState<RunFilter>({ env: null, state: null, from_day: null, to_day: null });
  const [rows, setRows] = useState<RunRow[]>([]);
  const [envs, setEnvs] = useState<string[]>([]);
  const [open, setOpen] = useState<RunDetail | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function load(f: RunFilter) {
    try {
      setRows(await call(commands.listRuns(f)));
      setError(null);
    } catch (e) {
      setError(message(e));
    }
  }
  useEffect(() => {
    void load(filter);
  }, [filter]);
  useEffect(() => {
    call(commands.listRuns({ env: null, state: null, from_day: null, to_day: null }))
      .then((all) => setEnvs([...new Set(all.map((r) => r.env))].sort()))
      .catch(() => {});
  }, []);

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
      await load(filter);
    } catch (e) {
      setError(message(e));
    }
  }

  return (
    <div className="stack">
      <div className="screen-head">
        <h1>History</h1>
        <span className="sub">{rows.length} run(s)</span>
      </div>
      <ErrorNote error={error} />
      <div className="panel fields" role="search" aria-label="Filter runs">
        <label className="field">
          <span>Environment</span>
          <select value={filter.env ?? ""} onChange={(e) => setFilter({ ...filter, env: e.target.value || null })} data-testid="filter-env">
            <option value="">all</option>
            {envs.map((e) => <option key={e} value={e}>{e}</option>)}
          </select>
        </label>
        <label className="field">
          <span>State</span>
          <select value={filter.state ?? ""} onChange={(e) => setFilter({ ...filter, state: (e.target.value || null) as RunStateName | null })} data-testid="filter-state">
            <option value="">all</option>
            {STATES.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>
        <label className="field">
          <span>From (UTC day)</span>
          <input type="date" value={filter.from_day ?? ""} onChange={(e) => setFilter({ ...filter, from_day: e.target.value || null })} />
        </label>
        <label className="field">
          <span>To (UTC day)</span>
          <input type="date" value={filter.to_day ?? ""} onChange={(e) => setFilter({ ...filter, to_day: e.target.value || null })} />
        </label>
      </div>
      <section className="panel">
        <table className="data" aria-label="Runs" data-testid="runs-table">
          <thead>
            <tr>
              <th className="num">Run</th>
              <th>Environment</th>
              <th>State</th>
              <th>Started (UTC)</th>
              <th className="num">Duration</th>
              <th className="num">Steps</th>
              <th>Scenarios</th>
              <th className="num">Max TPS</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr
                key={r.id}
                className="selectable"
                tabIndex={0}
                aria-selected={open?.row.id === r.id}
                onClick={() => show(r.id)}
                onKeyDown={(e) => (e.key === "Enter" || e.key === " ") && show(r.id)}
                data-testid={`run-${r.id}`}
                data-state={r.state}
              >
                <td className="num">#{r.id}</td>
                <td>{r.env}</td>
                <td><Badge kind={r.state} /></td>
                <td>{r.started}</td>
                <td className="num">{duration(r.duration_s)}</td>
                <td className="num">{r.steps}</td>
                <td>{r.scenarios.join(", ")}</td>
                <td className="num">{num(r.max_tps, 1)}</td>
              </tr>
            ))}
            {rows.length === 0 && (
              <tr><td colSpan={8} className="sub">No runs match.</td></tr>
            )}
          </tbody>
        </table>
      </section>
      {open && <RunPanel run={open} onDelete={() => remove(open.row.id)} />}
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
  return (
    <section className="panel stack" aria-label={`Run ${run.row.id}`} data-testid="run-detail">
      <div className="row">
        <h2>Run #{run.row.id}</h2>
        <Badge kind={run.row.state} />
        <span className="sub">{run.row.env} — {run.row.command} — {run.row.started}</span>
        <span className="spacer" style={{ flex: 1 }} />
        <button className="btn danger" onClick={onDelete}>Delete run</button>
      </div>
      {run.failure && <ErrorNote error={run.failure} />}
      <div className="grid-2">
        <Chart title="Throughput per second" x={x} lines={tps} testId="history-chart" />
        <Chart title="Latency p95 (ms)" x={x} lines={latency} />
      </div>
      <StepTable steps={run.steps} caption={`Steps of run ${run.row.id}`} />
      {run.warnings.length > 0 && (
        <details>
          <summary>Warnings ({run.warnings.length})</summary>
          <ul>{run.warnings.map((w, i) => <li key={i}>{w}</li>)}</ul>
        </details>
      )}
    </section>
  );
}
