// Plan: scenarios, the thread ladder, time per step, warm-up, cool-down, data scale,
// prepare / prewarm (and its hit-rate gate) / cleanup, the row distribution and the
// transaction mix (PlanWorkload.tsx), the latency target and the rate ladder
// (PlanLoad.tsx). The preview (phases, total time, dataset against buffer
// pool and free disk) is computed in Rust on every change. On a wide window the form's
// panels flow into two columns beside the preview; on a narrow one, into one.
import { useEffect, useRef, useState } from "react";
import { commands, type DatasetFields, type PlanForm, type PlanPreview } from "../bindings";
import { call, message } from "../api";
import { ErrorNote } from "../components/bits";
import { StartRunButton } from "../components/StartRun";
import { count, duration, num } from "../state/format";
import { usePlanForm } from "../state/usePlanForm";
import { PrewarmGate, RowDistribution, TpccData, TransactionMix } from "./PlanWorkload";
import { LatencyTarget, RateLadder } from "./PlanLoad";
import { ClientSplitTable, ClientsTakingPart } from "./PlanClients";

export const DEFAULT_LADDER = [1, 8, 16, 32, 64, 128];

export { useStartRun } from "../components/StartRun";

export function Plan() {
  const { env, form, setForm, scenarios, randTypes, clientsAvailable, error: formError } = usePlanForm();
  const [preview, setPreview] = useState<PlanPreview | null>(null);
  const [error, setError] = useState<string | null>(null);
  // The Data panel's fields, as the last valid preview said: a form that is invalid
  // for a moment keeps the fields being edited.
  const [dataFields, setDataFields] = useState<DatasetFields>({ tables_and_rows: true, warehouses: false });
  const threadInput = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (!env || !form) return;
    let live = true;
    const t = setTimeout(() => {
      call(commands.planPreview(env, form))
        .then((p) => live && (setPreview(p), setDataFields(p.dataset_fields), setError(null)))
        .catch((e) => live && (setPreview(null), setError(message(e))));
    }, 150);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [env, form]);

  if (!form) return <ErrorNote error={formError} />;
  // Functional updates: quick successive edits never overwrite each other.
  const update = (f: (p: PlanForm) => PlanForm) => setForm((p) => (p ? f(p) : p));
  const set = <K extends keyof PlanForm>(k: K, v: PlanForm[K]) => update((p) => ({ ...p, [k]: v }));
  const toggleScenario = (s: string) =>
    update((p) => ({ ...p, scenarios: p.scenarios.includes(s) ? p.scenarios.filter((x) => x !== s) : [...p.scenarios, s] }));
  const addThreads = () => {
    const el = threadInput.current;
    const n = Number(el?.value);
    if (Number.isInteger(n) && n > 0) {
      update((p) => (p.threads.includes(n) ? p : { ...p, threads: [...p.threads, n].sort((a, b) => a - b) }));
    }
    if (el) el.value = "";
  };
  const numberField = (label: string, k: "time_s" | "warmup_s" | "cooldown_s" | "stall_timeout_s" | "tables" | "table_size", id: string) => (
    <label className="field">
      <span>{label}</span>
      <input type="number" min={0} value={form[k]} onChange={(e) => set(k, Math.max(0, Math.floor(Number(e.target.value) || 0)))} data-testid={id} />
    </label>
  );

  return (
    <div className="stack">
      <div className="screen-head">
        <h1>Plan</h1>
        <span className="sub">{env}</span>
        <span className="spacer" />
        <StartRunButton ready={preview !== null} onError={setError} />
      </div>
      <ErrorNote error={error} />
      <div className="plan-layout">
        <div className="plan-form" data-testid="plan-form">
          <fieldset className="panel">
            <legend>Scenarios</legend>
            <div className="fields">
              {scenarios.map((s) => (
                <label key={s} className="check">
                  <input type="checkbox" checked={form.scenarios.includes(s)} onChange={() => toggleScenario(s)} data-testid={`scenario-${s}`} />
                  {s}
                </label>
              ))}
            </div>
          </fieldset>
          <fieldset className="panel" data-testid="plan-threads" data-replaced={form.load.rates.length > 0 || undefined}>
            <legend>Thread ladder</legend>
            {form.load.rates.length > 0 && (
              <div className="notice warn" data-testid="threads-replaced">
                Replaced by the rate ladder: one open-loop step per arrival rate ({form.load.rates.map((r) => `${r}/s`).join(", ")}).
                These thread counts are not run.
              </div>
            )}
            <div className="chips" aria-label="Thread counts">
              {form.threads.map((t) => (
                <span className="chip" key={t}>
                  {t}
                  <button aria-label={`Remove ${count(t, "thread")}`} onClick={() => update((p) => ({ ...p, threads: p.threads.filter((x) => x !== t) }))}>
                    ×
                  </button>
                </span>
              ))}
            </div>
            <div className="row" style={{ marginTop: 8 }}>
              <label className="field" style={{ width: 140 }}>
                <span>Add a thread count</span>
                <input
                  type="number"
                  min={1}
                  ref={threadInput}
                  onKeyDown={(e) => e.key === "Enter" && addThreads()}
                  data-testid="thread-input"
                />
              </label>
              <button className="btn" onClick={addThreads} style={{ alignSelf: "end" }} data-testid="thread-add">Add</button>
              <button className="btn" onClick={() => set("threads", [...DEFAULT_LADDER])} style={{ alignSelf: "end" }}>
                Reset to 1 8 16 32 64 128
              </button>
              <button className="btn" onClick={() => set("threads", [])} style={{ alignSelf: "end" }} data-testid="thread-clear">
                Clear
              </button>
            </div>
          </fieldset>
          <RateLadder form={form} update={update} />
          <ClientsTakingPart form={form} update={update} available={clientsAvailable} />
          <fieldset className="panel">
            <legend>Timing</legend>
            <div className="fields">
              {numberField("Seconds per step", "time_s", "time")}
              {numberField("Warm-up seconds", "warmup_s", "warmup")}
              {numberField("Cool-down seconds", "cooldown_s", "cooldown")}
              {numberField("Stall timeout seconds (a silent server fails the step)", "stall_timeout_s", "stall-timeout")}
              <label className="field" title="Each step runs this many times, the ladder forward then backward in turn; 3 or more give intervals that hold run-to-run variation">
                <span>Repeats of each step</span>
                <input
                  type="number"
                  min={1}
                  max={20}
                  value={form.repeat}
                  onChange={(e) => set("repeat", Math.floor(Number(e.target.value) || 0))}
                  data-testid="repeat"
                />
              </label>
            </div>
          </fieldset>
          <fieldset className="panel">
            <legend>Live metrics</legend>
            <label className="field" title="While the run is on, Prometheus can scrape http://HOST:PORT/metrics (OpenMetrics); docs/monitoring.md has a Grafana dashboard">
              <span>Serve to Prometheus at (loopback HOST:PORT; empty: off)</span>
              <input
                type="text"
                placeholder="127.0.0.1:9187"
                value={form.metrics_addr ?? ""}
                onChange={(e) => set("metrics_addr", e.target.value.trim() === "" ? null : e.target.value)}
                data-testid="metrics-addr"
              />
            </label>
          </fieldset>
          <fieldset className="panel">
            <legend>Data</legend>
            <div className="fields">
              {numberField(dataFields.tables_and_rows ? "Tables" : "Sets of tables", "tables", "tables")}
              {dataFields.tables_and_rows && numberField("Rows per table", "table_size", "table-size")}
            </div>
            {dataFields.warehouses && <TpccData form={form} update={update} />}
            <div className="row" style={{ marginTop: 8 }}>
              <label className="check">
                <input
                  type="checkbox"
                  checked={form.prepare !== "never"}
                  onChange={(e) => set("prepare", e.target.checked ? "if-missing" : "never")}
                  data-testid="opt-prepare"
                />
                Prepare (create and load)
              </label>
              {(["prewarm", "cleanup"] as const).map((k) => (
                <label className="check" key={k}>
                  <input type="checkbox" checked={form[k]} onChange={(e) => set(k, e.target.checked)} data-testid={`opt-${k}`} />
                  {k === "prewarm" ? "Prewarm the buffer pool" : "Clean up afterwards"}
                </label>
              ))}
            </div>
            {form.prepare !== "never" && <PrepareMode form={form} set={set} />}
            <div className="row" style={{ marginTop: 8 }}>
              <PrewarmGate form={form} update={update} />
            </div>
          </fieldset>
          <LatencyTarget form={form} update={update} />
          <RowDistribution form={form} update={update} choices={randTypes} />
          <TransactionMix form={form} update={update} />
        </div>
        <PreviewPanel preview={preview} />
      </div>
    </div>
  );
}

/** What prepare does when the tables are there already. Tables DB Dyno did not make are
 *  never reused nor dropped, whatever is chosen here. */
function PrepareMode({ form, set }: { form: PlanForm; set: (k: "prepare", v: PlanForm["prepare"]) => void }) {
  return (
    <label className="field" style={{ marginTop: 8 }}>
      <span>When DB Dyno's tables are there already</span>
      <select value={form.prepare} onChange={(e) => set("prepare", e.target.value as PlanForm["prepare"])} data-testid="prepare-mode">
        <option value="if-missing">Reuse them when they are in this plan's shape (load only if missing)</option>
        <option value="always">Drop them and load again</option>
        <option value="resume">Continue a prepare that was cut short (keep the complete tables, load the rest)</option>
      </select>
    </label>
  );
}

function PreviewPanel({ preview }: { preview: PlanPreview | null }) {
  if (!preview) return <div className="panel sub plan-preview">The preview appears when the plan is valid.</div>;
  const d = preview.dataset;
  return (
    <section className="panel stack plan-preview" aria-label="Plan preview" data-testid="plan-preview">
      <div className="kpis" style={{ gridTemplateColumns: "repeat(3, 1fr)" }}>
        <div className="kpi">
          <div className="label">Total time</div>
          <div className="value" data-testid="plan-total">{duration(preview.total_seconds)}{preview.open_ended || preview.search_max_seconds > 0 ? " +" : ""}</div>
        </div>
        <div className="kpi">
          <div className="label">Steps</div>
          <div className="value">{preview.steps}</div>
        </div>
        <div className="kpi">
          <div className="label">Peak connections</div>
          <div className="value">{preview.peak_connections}</div>
        </div>
      </div>
      {preview.open_ended && <div className="sub">+ prepare / prewarm, which take as long as the server needs.</div>}
      {preview.search_max_seconds > 0 && (
        <div className="sub" data-testid="plan-search-time">
          + the capacity search's extra steps: up to {duration(preview.search_max_seconds)} more.
        </div>
      )}
      {preview.rate_ladder && (
        <div className="sub" data-testid="plan-rate-ladder">Open loop: one step per arrival rate, in place of the thread ladder.</div>
      )}
      <div>
        <h3>Dataset</h3>
        <div data-testid="dataset-size">About <strong>{d.human}</strong></div>
        {d.buffer_pool_human ? (
          <div>
            Buffer pool {d.buffer_pool_human}: ratio {num(d.ratio, 2)} — {d.regime}
          </div>
        ) : (
          <div className="sub">Run the checks to compare it with the buffer pool and the free disk.</div>
        )}
        {d.free_disk_human && (
          <div className={d.fits_disk === false ? "notice error" : ""}>
            Free disk {d.free_disk_human}{d.fits_disk === false ? ": not enough room to prepare this dataset" : ""}
          </div>
        )}
        <div className="sub">Peak prepared statements: <span data-testid="peak-ps">{num(preview.peak_prepared_statements, 0)}</span></div>
      </div>
      <ClientSplitTable split={preview.client_split ?? null} />
      <div>
        <h3>Phases</h3>
        <ol className="log" style={{ maxHeight: 260, paddingLeft: 30, margin: 0 }} data-testid="plan-phases">
          {preview.phases.map((p, i) => (
            <li key={i}>
              {p.label}
              {p.seconds !== null && <span className="sub"> — {duration(p.seconds)}</span>}
            </li>
          ))}
        </ol>
      </div>
    </section>
  );
}
