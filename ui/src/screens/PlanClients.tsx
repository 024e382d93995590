// The Plan screen's "Load clients": which of the environment's clients take part, and
// how each thread count is split among them, as Rust computes it for the preview.
import type { ClientSplit, PlanForm } from "../bindings";

type Update = (f: (p: PlanForm) => PlanForm) => void;

export function ClientsTakingPart({ form, update, available }: { form: PlanForm; update: Update; available: string[] }) {
  // One machine and no other on offer: nothing to choose.
  if (available.length < 2) return null;
  const toggle = (c: string) =>
    update((p) => ({
      ...p,
      // Kept in the environment's order: the order threads are handed out in.
      clients: p.clients.includes(c) ? p.clients.filter((x) => x !== c) : available.filter((x) => x === c || p.clients.includes(x)),
    }));
  return (
    <fieldset className="panel" data-testid="plan-clients">
      <legend>Load clients</legend>
      <div className="fields">
        {available.map((c) => (
          <label key={c} className="check">
            <input type="checkbox" checked={form.clients.includes(c)} onChange={() => toggle(c)} data-testid={`client-${c}`} />
            {c === "local" ? "this machine (local)" : c}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

export function ClientSplitTable({ split }: { split: ClientSplit | null }) {
  if (!split) return null;
  return (
    <div data-testid="client-split">
      <h3>Threads per load client</h3>
      <table className="matrix">
        <thead>
          <tr>
            <th>Threads</th>
            {split.clients.map((c) => (
              <th key={c}>{c}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {split.steps.map((s) => (
            <tr key={s.threads}>
              <td>{s.threads}</td>
              {s.per_client.map((n, i) => (
                <td key={i}>{n}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
