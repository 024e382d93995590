// History's "Trends over time": each environment × scenario × thread count with five
// runs or more among the runs the filter shows, its TPS and p95 run after run, the
// change points Rust found (dashed lines) and the level between them (the step line).
// Fetched once opened, and again when the list reloads: it reads every run listed.
import { useEffect, useMemo, useState } from "react";
import { commands, type RunFilter, type RunRow, type TrendView } from "../bindings";
import { call, message } from "../api";
import { Chart, type Line } from "./Chart";
import { ErrorNote } from "./bits";

export function TrendPanel({ filter, rows }: { filter: RunFilter; rows: RunRow[] }) {
  const [open, setOpen] = useState(false);
  const [trends, setTrends] = useState<TrendView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!open) return;
    let live = true;
    call(commands.historyTrends(filter))
      .then((t) => {
        if (!live) return;
        setTrends(t);
        setError(null);
      })
      .catch((e) => live && setError(message(e)));
    return () => {
      live = false;
    };
  }, [open, filter, rows]);
  return (
    <details className="panel stack" data-testid="trends" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Trends over time: where a figure changed level across runs</summary>
      <ErrorNote error={error} />
      {trends?.length === 0 && (
        <p className="sub" data-testid="trends-none">
          No scenario at one thread count has 5 runs among these yet: a trend needs a series, such as a nightly run of
          one plan.
        </p>
      )}
      {trends?.map((t) => <TrendCell key={`${t.env}/${t.scenario}@${t.threads}`} trend={t} />)}
    </details>
  );
}

function TrendCell({ trend }: { trend: TrendView }) {
  const x = useMemo(() => trend.runs.map((_, i) => i + 1), [trend]);
  const tps = useMemo<Line[]>(
    () => [
      { label: "TPS", color: "--chart-1", values: trend.runs.map((r) => r.tps) },
      { label: "level", color: "--chart-2", values: trend.tps_level },
    ],
    [trend],
  );
  const p95 = useMemo<Line[]>(
    () => [
      { label: "p95", color: "--chart-3", values: trend.runs.map((r) => r.p95_ms), unit: " ms" },
      { label: "level", color: "--chart-2", values: trend.p95_level, unit: " ms" },
    ],
    [trend],
  );
  const hasP95 = trend.runs.some((r) => r.p95_ms !== null);
  const first = trend.runs[0];
  const last = trend.runs[trend.runs.length - 1];
  return (
    <section className="stack" aria-label={trend.summary} data-testid="trend" data-cell={`${trend.env}/${trend.scenario}@${trend.threads}`}>
      <h3>{trend.summary}</h3>
      <ul data-testid="trend-changes">
        {trend.changes.map((c, i) => (
          <li key={i}>{c}</li>
        ))}
      </ul>
      <div className="grid-2">
        <Chart title="TPS, run after run" x={x} lines={tps} xLabel="run" wholeX markers={trend.tps_change_at} testId="trend-tps" />
        {hasP95 && <Chart title="p95 latency (ms), run after run" x={x} lines={p95} xLabel="run" wholeX markers={trend.p95_change_at} testId="trend-p95" />}
      </div>
      {first && last && (
        <p className="sub">
          Run 1 is history run #{first.run_id}
          {first.day ? ` (${first.day})` : ""}; run {trend.runs.length} is #{last.run_id}
          {last.day ? ` (${last.day})` : ""}.
        </p>
      )}
    </section>
  );
}
