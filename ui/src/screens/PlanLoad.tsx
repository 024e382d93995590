// The Plan screen's load choices beyond the thread ladder: the latency target with its
// capacity search, and the rate ladder (open-loop steps at set arrival rates). The
// target is sent as typed; Rust parses it and its message comes back through the
// preview's error.
import { useRef } from "react";
import type { ArrivalSpacing, LoadKnobs, PlanForm } from "../bindings";

type Update = (f: (p: PlanForm) => PlanForm) => void;

const setLoad = (update: Update, change: Partial<LoadKnobs>) => update((p) => ({ ...p, load: { ...p.load, ...change } }));

export function LatencyTarget({ form, update }: { form: PlanForm; update: Update }) {
  const load = form.load;
  return (
    <fieldset className="panel" data-testid="plan-sla">
      <legend>Latency target</legend>
      <div className="fields">
        <label className="field" title="A percentile and a limit, like p95<=20ms or p99<=5ms; empty: no target">
          <span>Target (empty: none)</span>
          <input
            type="text"
            placeholder="p95<=20ms"
            value={load.sla}
            onChange={(e) => setLoad(update, { sla: e.target.value })}
            data-testid="sla"
          />
        </label>
        <label
          className="field"
          title="After the ladder, bisect the thread counts between the last step within the target and the first beyond it, with at most this many extra steps per scenario"
        >
          <span>Capacity search: extra steps (0: off)</span>
          <input
            type="number"
            min={0}
            value={load.sla_search}
            onChange={(e) => setLoad(update, { sla_search: Math.max(0, Math.floor(Number(e.target.value) || 0)) })}
            data-testid="sla-search"
          />
        </label>
      </div>
      <div className="sub">A step is within the target when the upper end of its percentile's 95% interval meets the limit.</div>
    </fieldset>
  );
}

export function RateLadder({ form, update }: { form: PlanForm; update: Update }) {
  const input = useRef<HTMLInputElement>(null);
  const load = form.load;
  const add = () => {
    const el = input.current;
    const n = Number(el?.value);
    if (Number.isInteger(n) && n > 0 && !load.rates.includes(n)) {
      setLoad(update, { rates: [...load.rates, n].sort((a, b) => a - b) });
    }
    if (el) el.value = "";
  };
  return (
    <fieldset className="panel" data-testid="plan-rates">
      <legend>Rate ladder (open loop)</legend>
      <div className="sub">
        One step per arrival rate, latency measured from each transaction's intended start. When rates are set they
        replace the thread ladder.
      </div>
      <div className="chips" aria-label="Arrival rates">
        {load.rates.map((r) => (
          <span className="chip" key={r}>
            {r}/s
            <button aria-label={`Remove ${r}/s`} onClick={() => setLoad(update, { rates: load.rates.filter((x) => x !== r) })}>
              ×
            </button>
          </span>
        ))}
      </div>
      <div className="row" style={{ marginTop: 8 }}>
        <label className="field" style={{ width: 160 }}>
          <span>Add a rate (transactions/s)</span>
          <input type="number" min={1} ref={input} onKeyDown={(e) => e.key === "Enter" && add()} data-testid="rate-input" />
        </label>
        <button className="btn" onClick={add} style={{ alignSelf: "end" }} data-testid="rate-add">Add</button>
        <label className="field" style={{ width: 160 }}>
          <span>Arrivals</span>
          <select
            value={load.rate_dist}
            onChange={(e) => setLoad(update, { rate_dist: e.target.value as ArrivalSpacing })}
            data-testid="rate-dist"
          >
            <option value="fixed">fixed interval</option>
            <option value="poisson">poisson (independent users)</option>
          </select>
        </label>
        {load.rates.length > 0 && (
          <button className="btn" onClick={() => setLoad(update, { rates: [] })} style={{ alignSelf: "end" }} data-testid="rate-clear">
            Back to the thread ladder
          </button>
        )}
      </div>
    </fieldset>
  );
}
