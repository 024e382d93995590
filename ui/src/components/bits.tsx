// Small shared pieces: status badges, the step table, inline errors.
import type { StepRow } from "../bindings";
import { num } from "../state/format";

export function Badge({ kind, children }: { kind: string; children?: React.ReactNode }) {
  return <span className={`badge ${kind}`}>{children ?? kind.replace("_", " ")}</span>;
}

export function ErrorNote({ error }: { error: string | null }) {
  if (!error) return null;
  return (
    <div className="notice error" role="alert">
      <pre>{error}</pre>
    </div>
  );
}

export function StepTable({ steps, caption }: { steps: StepRow[]; caption: string }) {
  // TPC-C's own figures get a column when the run has tpcc steps; Rust fills them.
  const tpcc = steps.some((s) => s.scenario === "tpcc" || s.tpmc !== null);
  return (
    <table className="data" aria-label={caption} data-testid="step-table">
      <thead>
        <tr>
          <th>#</th>
          <th>Scenario</th>
          <th className="num">Threads</th>
          <th>Status</th>
          <th className="num">TPS</th>
          <th className="num">QPS</th>
          {tpcc && <th className="num">tpmC</th>}
          <th className="num">p95 ms</th>
          <th className="num">p99 ms</th>
          <th className="num">Errors</th>
          <th className="num">Reconn.</th>
          <th className="num">Client CPU</th>
          <th>Notes</th>
        </tr>
      </thead>
      <tbody>
        {steps.map((s) => (
          <tr key={s.index} data-status={s.status}>
            <td>{s.index + 1}</td>
            <td>{s.scenario}</td>
            <td className="num">{s.threads}</td>
            <td>
              <Badge kind={s.status} />
            </td>
            <td className="num" data-testid="step-tps">
              {num(s.tps, 1)}
              {s.noise?.tps_half_width_pct != null && <span className="sub"> ± {num(s.noise.tps_half_width_pct, 1)}%</span>}
            </td>
            <td className="num">{num(s.qps, 1)}</td>
            {tpcc && (
              <td className="num" data-testid="step-tpmc" data-value={s.tpmc ?? ""}>
                {num(s.tpmc, 0)}
                {s.nopm !== null && <span className="sub"> NOPM {num(s.nopm, 0)}</span>}
              </td>
            )}
            <td className="num" data-testid="step-p95">
              {num(s.p95_ms, 2)}
              {s.noise?.p95_interval_ms && (
                <span className="sub" title="95% interval">
                  {" "}({num(s.noise.p95_interval_ms.lower, 2)}–{num(s.noise.p95_interval_ms.upper, 2)})
                </span>
              )}
            </td>
            <td className="num">{num(s.p99_ms, 2)}</td>
            <td className="num">{num(s.errors, 0)}</td>
            <td className="num">{num(s.reconnects, 0)}</td>
            <td className="num">{s.client_cpu_pct === null ? "—" : `${num(s.client_cpu_pct, 0)}%`}</td>
            <td>
              <StepNotes step={s} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** What a step's row says beyond its figures: its repeat, its mode, the latency target's
 * mark, and the warnings (rate not kept, never settled), all as Rust computed them. */
function StepNotes({ step: s }: { step: StepRow }) {
  const n = s.noise;
  return (
    <span className="notes">
      {s.failure && (
        <span className="tag fail" data-testid="step-failure">
          {s.failure}
        </span>
      )}
      {s.repeat && <span className="tag" data-testid="step-repeat">{s.repeat}</span>}
      {s.sla_search && <span className="tag" data-testid="step-search">capacity search</span>}
      {s.mode && <span className="tag" data-testid="step-mode">{s.mode}</span>}
      {n?.rate_not_sustained && (
        <span className="tag warn" title={n.rate_not_sustained} data-testid="step-rate">
          rate not sustained
        </span>
      )}
      {n && !n.settled && (
        <span className="tag warn" title="The per-second throughput never held steady: its interval is wide" data-testid="step-unsettled">
          never settled
        </span>
      )}
      {n?.sla && (
        <span className={`tag ${n.sla.within === true ? "within" : n.sla.within === false ? "beyond" : ""}`} data-testid="step-sla" data-within={String(n.sla.within)}>
          {n.sla.text}
        </span>
      )}
    </span>
  );
}
