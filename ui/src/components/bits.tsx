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
          <th className="num">p95 ms</th>
          <th className="num">p99 ms</th>
          <th className="num">Errors</th>
          <th className="num">Reconn.</th>
          <th className="num">Client CPU</th>
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
            <td className="num">{num(s.tps, 1)}</td>
            <td className="num">{num(s.qps, 1)}</td>
            <td className="num">{num(s.p95_ms, 2)}</td>
            <td className="num">{num(s.p99_ms, 2)}</td>
            <td className="num">{num(s.errors, 0)}</td>
            <td className="num">{num(s.reconnects, 0)}</td>
            <td className="num">{s.client_cpu_pct === null ? "—" : `${num(s.client_cpu_pct, 0)}%`}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
