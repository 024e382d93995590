// A report as Rust's report model computed it (CompareView): the verdict and executive
// summary, then per scenario the dyno curves and the matrix with each Δ% and its 95%
// interval and the verdict (REGRESSED, IMPROVED, within noise in a colour of its own,
// not judged), then the analysis and warnings. Compare shows it for several runs,
// History for one. Only layout here: every figure, delta, interval, verdict and sentence
// is the model's.
import { Fragment, useMemo } from "react";
import type { CompareView, DeltaRange, DeltaView, EnvView, ErrorBar, ScenarioView } from "../bindings";
import { DynoChart, type Curve } from "./DynoChart";
import { Badge } from "./bits";
import { count, num, signedPct } from "../state/format";

const COLOURS = ["--chart-1", "--chart-2", "--chart-3", "--chart-4"];
const colour = (env: number) => COLOURS[env % COLOURS.length];

export function ReportView({ view }: { view: CompareView }) {
  return (
    <div className="stack" data-testid="report-view">
      <Summary view={view} />
      {view.scenarios.map((s) => (
        <ScenarioPanel key={s.scenario} view={view} s={s} />
      ))}
      <Analysis view={view} />
    </div>
  );
}

function Summary({ view }: { view: CompareView }) {
  const v = view.verdict;
  const base = view.baseline === null ? null : view.envs[view.baseline];
  return (
    <section className="panel stack" aria-label="Summary" data-testid="report-summary">
      <div className="row">
        <h2>{view.title}</h2>
        {v && (
          <span className={`badge ${v.failed > 0 ? "fail" : "pass"}`} data-testid="report-verdict">
            {v.failed > 0 ? `FAIL: ${v.failed} of ${count(v.compared, "cell")} regressed` : `PASS: ${count(v.compared, "cell")}`}
            {`, ${v.improved} improved, ${v.within_noise} within noise`}
            {v.not_judged > 0 && `, ${v.not_judged} not judged`}
          </span>
        )}
      </div>
      {base && (
        <div className="sub">
          Against the baseline <strong>{base.name}</strong>: a cell regresses only when the whole 95% interval of its Δ TPS
          or Δ p95 is a change for the worse of more than {view.threshold_pct}% (p95 changes under{" "}
          {view.latency_floor_ms} ms never count), and improves when all of it is a change for the better of more than
          that; otherwise it is within noise.
        </div>
      )}
      <ul className="summary" data-testid="executive-summary">
        {view.executive_summary.map((line, i) => <li key={i}>{line}</li>)}
      </ul>
    </section>
  );
}

function ScenarioPanel({ view, s }: { view: CompareView; s: ScenarioView }) {
  const name = (env: number) => view.envs[env]?.name ?? "?";
  const curves = useMemo(() => {
    type Cell = NonNullable<ScenarioView["envs"][number]["cells"][number]>;
    const of = (pick: (c: Cell) => number | null, bar: (c: Cell) => ErrorBar | null): Curve[] =>
      s.envs.map((e) => ({
        label: name(e.env),
        color: colour(e.env),
        values: e.cells.map((c) => (c ? pick(c) : null)),
        bars: e.cells.map((c) => (c ? bar(c) : null)),
      }));
    return { tps: of((c) => c.tps, (c) => c.tps_interval), p95: of((c) => c.p95_ms, (c) => c.p95_interval) };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [s, view.envs]);
  return (
    <section className="panel stack" aria-label={`Scenario ${s.scenario}`} data-testid={`scenario-${s.scenario}`}>
      <h2>{s.scenario}</h2>
      <div className="grid-2">
        <DynoChart title="TPS vs threads" threads={s.threads} curves={curves.tps} testId={`curve-tps-${s.scenario}`} />
        <DynoChart title="p95 latency (ms) vs threads" threads={s.threads} curves={curves.p95} unit=" ms" testId={`curve-p95-${s.scenario}`} />
      </div>
      <Matrix view={view} s={s} />
    </section>
  );
}

function Matrix({ view, s }: { view: CompareView; s: ScenarioView }) {
  const comparing = view.baseline !== null;
  return (
    <div className="table-scroll">
      <table className="data matrix" aria-label={`Matrix of ${s.scenario}`} data-testid={`matrix-${s.scenario}`}>
        <thead>
          <tr>
            <th>Run</th>
            <th className="num">Threads</th>
            <th className="num">TPS</th>
            {comparing && <th className="num">Δ TPS</th>}
            <th className="num">QPS</th>
            <th className="num">p95 ms</th>
            {comparing && <th className="num">Δ p95</th>}
            <th className="num">p99 ms</th>
            <th className="num">CPU %</th>
            {comparing && <th className="num">Δ CPU</th>}
            <th className="num">Disk %</th>
            {comparing && <th>Verdict</th>}
          </tr>
        </thead>
        <tbody>
          {s.envs.map((e) => (
            <Fragment key={e.env}>
              {s.threads.map((t, i) => {
                const c = e.cells[i];
                const d = e.deltas?.[i] ?? null;
                if (!c && !d) return null;
                const knee = c !== null && e.best_threads === t;
                return (
                  <tr key={t} data-testid="matrix-row" data-env={e.env} data-threads={t} data-verdict={d?.verdict ?? (comparing ? "baseline" : undefined)} className={knee ? "knee" : undefined}>
                    <td><EnvName env={view.envs[e.env]} color={colour(e.env)} /></td>
                    <td className="num">{t}{knee && <span title="best thread count (the knee, or the top of the ladder while still scaling)"> ★</span>}</td>
                    <td className="num">{num(c?.tps, 1)}</td>
                    {comparing && <td className="num delta">{d ? signedPct(d.tps_pct) : ""}<Range r={d?.tps_range} /></td>}
                    <td className="num">{num(c?.qps, 1)}</td>
                    <td className="num">{num(c?.p95_ms, 2)}</td>
                    {comparing && <td className="num delta">{d ? signedPct(d.p95_pct) : ""}<Range r={d?.p95_range} /></td>}
                    <td className="num">{num(c?.p99_ms, 2)}</td>
                    <td className="num">{num(c?.cpu_pct, 1)}</td>
                    {comparing && <td className="num">{d ? signedPct(d.cpu_pct) : ""}</td>}
                    <td className="num">{num(c?.disk_util_pct, 1)}</td>
                    {comparing && (
                      <td title={d?.reasons.join("; ") || undefined}>
                        {d ? <Badge kind={d.verdict}>{verdictText(d)}</Badge> : <span className="sub">baseline</span>}
                      </td>
                    )}
                  </tr>
                );
              })}
            </Fragment>
          ))}
        </tbody>
      </table>
      <p className="sub matrix-note">
        ★ best thread count (the knee, or the top of the ladder while still scaling). Δ against the baseline, in percent of its
        figure, with its 95% interval; “within noise ±x%”: these runs cannot tell differences under x% apart.
      </p>
    </div>
  );
}

/** A Δ's 95% interval as the reports write it: " (−13.0…−10.6)". */
function Range({ r }: { r: DeltaRange | null | undefined }) {
  if (!r || r.lower_pct === null || r.upper_pct === null) return null;
  const end = (v: number) => signedPct(v).replace("%", "");
  return <small className="range"> ({end(r.lower_pct)}…{end(r.upper_pct)})</small>;
}

/** "within noise ±1.5%" for a cell within noise, else the verdict as the reports write it. */
function verdictText(d: DeltaView): string {
  if (d.verdict === "within_noise" && d.noise_pct !== null) return `${d.verdict_label} ±${num(d.noise_pct, 1)}%`;
  return d.verdict_label;
}

function EnvName({ env, color }: { env: EnvView | undefined; color: string }) {
  return (
    <span className="env-name">
      <span className="swatch" style={{ background: `var(${color})` }} aria-hidden="true" />
      {env?.name ?? "?"}
    </span>
  );
}

function Analysis({ view }: { view: CompareView }) {
  const failures = view.verdict?.failures ?? [];
  return (
    <section className="panel stack" aria-label="Analysis" data-testid="report-analysis">
      <h2>Analysis</h2>
      {view.headlines.length > 0 && (
        <>
          <h3>Headlines</h3>
          <ul>{view.headlines.map((h, i) => <li key={i}>{h}</li>)}</ul>
        </>
      )}
      {failures.length > 0 && (
        <>
          <h3>Regressions</h3>
          <ul data-testid="report-failures">{failures.map((f, i) => <li key={i}>{f}</li>)}</ul>
        </>
      )}
      <h3>Knee and bottleneck</h3>
      <table className="data" aria-label="Knee and bottleneck per scenario">
        <thead>
          <tr>
            <th>Scenario</th>
            <th>Run</th>
            <th className="num">Best threads</th>
            <th>Bottleneck</th>
            <th>Evidence and what to try</th>
          </tr>
        </thead>
        <tbody>
          {view.scenarios.flatMap((s) =>
            s.envs
              .filter((e) => e.cells.some((c) => c !== null))
              .map((e) => (
                <tr key={`${s.scenario}-${e.env}`}>
                  <td className="nowrap">{s.scenario}</td>
                  <td className="nowrap"><EnvName env={view.envs[e.env]} color={colour(e.env)} /></td>
                  <td className="num">{e.best_threads ?? "—"}</td>
                  <td className="nowrap">{e.bottleneck}</td>
                  <td>
                    {e.knee_evidence}.
                    <div className="sub">{e.bottleneck_evidence}; {e.advice}.</div>
                  </td>
                </tr>
              )),
          )}
        </tbody>
      </table>
      {view.cold_starts.length > 0 && (
        <>
          <h3>Cold start</h3>
          <ul>{view.cold_starts.map((c, i) => <li key={i}>{c}</li>)}</ul>
        </>
      )}
      {view.warnings.length > 0 && (
        <>
          <h3>Warnings</h3>
          <ul className="warnings" data-testid="report-warnings">
            {view.warnings.map((w, i) => (
              <li key={i} className={w.serious ? "serious" : undefined}>{w.text}</li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
