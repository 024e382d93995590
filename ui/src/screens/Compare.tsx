// Compare: tick two or more runs of the history, choose the baseline and the regression
// threshold, and read the comparison Rust's report model computes (dyno curves, the
// matrix with Δ% and PASS/FAIL, the analysis); export it as PDF, HTML, Markdown or CSV.
import { useEffect, useMemo, useRef, useState } from "react";
import { commands, type CompareRequest, type CompareView } from "../bindings";
import { call, message } from "../api";
import { ErrorNote } from "../components/bits";
import { ExportBar } from "../components/ExportBar";
import { ReportView } from "../components/ReportView";
import { RunFilters, RunsTable } from "../components/RunsTable";
import { useRunList } from "../state/runs";

/** Edits settle this long before the comparison is asked for again. */
const SETTLE_MS = 250;

export function Compare() {
  const { filter, setFilter, rows, envs, error: listError } = useRunList();
  const [picked, setPicked] = useState<number[]>([]);
  const [baseline, setBaseline] = useState<number | null>(null);
  /** The threshold as typed; null until edited (Rust's default applies). */
  const [threshold, setThreshold] = useState<string | null>(null);
  const [view, setView] = useState<CompareView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const asked = useRef(0);

  // The baseline is one of the picked runs: the one chosen, else the first picked.
  const base = baseline !== null && picked.includes(baseline) ? baseline : (picked[0] ?? null);
  const request = useMemo<CompareRequest | null>(() => {
    if (picked.length < 2) return null;
    const t = threshold === null || threshold.trim() === "" ? null : Number(threshold);
    return { run_ids: picked, baseline: base, threshold_pct: t };
  }, [picked, base, threshold]);

  useEffect(() => {
    if (!request) {
      setView(null);
      setError(null);
      return;
    }
    const ticket = ++asked.current;
    const timer = setTimeout(async () => {
      setBusy(true);
      try {
        const v = await call(commands.compareRuns(request));
        if (ticket !== asked.current) return; // a newer request is on its way
        setView(v);
        setError(null);
      } catch (e) {
        if (ticket !== asked.current) return;
        // No figures that do not match the settings shown.
        setView(null);
        setError(message(e));
      } finally {
        if (ticket === asked.current) setBusy(false);
      }
    }, SETTLE_MS);
    return () => clearTimeout(timer);
  }, [request]);

  const pick = (id: number, on: boolean) => setPicked((p) => (on ? (p.includes(id) ? p : [...p, id]) : p.filter((x) => x !== id)));
  const label = (id: number) => {
    const r = rows.find((x) => x.id === id);
    return r ? `#${id} ${r.env}` : `#${id}`;
  };
  const shownThreshold = threshold ?? (view ? String(view.threshold_pct) : "");

  return (
    <div className="stack">
      <div className="screen-head">
        <h1>Compare</h1>
        <span className="sub">
          {picked.length < 2 ? "Tick two or more runs to compare them." : `${picked.length} runs against #${base}`}
        </span>
        {busy && <span className="sub" data-testid="compare-busy">computing…</span>}
      </div>
      <ErrorNote error={listError} />
      <RunFilters filter={filter} envs={envs} onChange={setFilter} />
      <section className="panel">
        <RunsTable rows={rows} picked={picked} onPick={pick} />
      </section>
      <div className="panel fields" aria-label="Comparison settings">
        <label className="field">
          <span>Baseline</span>
          <select
            value={base ?? ""}
            disabled={picked.length < 2}
            onChange={(e) => setBaseline(Number(e.target.value))}
            data-testid="compare-baseline"
          >
            {picked.map((id) => <option key={id} value={id}>{label(id)}</option>)}
          </select>
        </label>
        <label className="field">
          <span>Regression threshold (%)</span>
          <input
            type="number"
            min={0}
            step={0.5}
            value={shownThreshold}
            disabled={picked.length < 2}
            onChange={(e) => setThreshold(e.target.value)}
            data-testid="compare-threshold"
          />
        </label>
      </div>
      <ErrorNote error={error} />
      {view && request && (
        <>
          <section className="panel">
            <ExportBar request={request} label="Export the comparison" />
          </section>
          {view.capacity.length > 0 && (
            <section className="panel" aria-label="Capacity at the latency target" data-testid="compare-capacity">
              {view.capacity.map((line, i) => (
                <p key={i}>{line}</p>
              ))}
            </section>
          )}
          <ReportView view={view} />
        </>
      )}
    </div>
  );
}
