// The Plan screen's workload knobs: the row distribution (its parameters shown only
// for the distribution that reads them, as Rust lists them), the transaction mix
// ("Advanced"), prewarm's hit-rate gate and the tpcc scenario's warehouses and options. Values are sent as typed; Rust validates them
// and the preview's error names the field.
import type { PlanForm, RandChoice, RandParameter, TpccIsolation, TpccKnobs, WorkloadKnobs } from "../bindings";

type Update = (f: (p: PlanForm) => PlanForm) => void;

const PARAMETER_LABELS: Record<RandParameter, string> = {
  rand_spec_iter: "Iterations per draw",
  rand_spec_pct: "Hot rows (%)",
  rand_spec_res: "Draws on hot rows (%)",
  rand_pareto_h: "Pareto h",
  rand_zipfian_exp: "Zipfian exponent",
};

type MixKey =
  | "point_selects"
  | "simple_ranges"
  | "sum_ranges"
  | "order_ranges"
  | "distinct_ranges"
  | "index_updates"
  | "non_index_updates"
  | "delete_inserts"
  | "range_size";

const MIX: [MixKey, string][] = [
  ["point_selects", "Point selects"],
  ["simple_ranges", "Simple ranges"],
  ["sum_ranges", "Sum ranges"],
  ["order_ranges", "Order ranges"],
  ["distinct_ranges", "Distinct ranges"],
  ["index_updates", "Index updates"],
  ["non_index_updates", "Non-index updates"],
  ["delete_inserts", "Delete + insert pairs"],
  ["range_size", "Rows per range"],
];

const testId = (k: string) => k.replace(/_/g, "-");

/** A number as typed; an empty field is 0, as in the other fields. Rust refuses what
 *  the engine cannot use, naming the field. */
const typed = (raw: string) => Number(raw) || 0;

export function RowDistribution({ form, update, choices }: { form: PlanForm; update: Update; choices: RandChoice[] }) {
  const w = form.workload;
  const setW = <K extends keyof WorkloadKnobs>(k: K, v: WorkloadKnobs[K]) =>
    update((p) => ({ ...p, workload: { ...p.workload, [k]: v } }));
  const chosen = choices.find((c) => c.kind === w.rand_type);
  return (
    <fieldset className="panel">
      <legend>Row distribution</legend>
      <div className="fields">
        <label className="field">
          <span>Which rows transactions pick</span>
          <select
            value={w.rand_type}
            onChange={(e) => setW("rand_type", e.target.value as WorkloadKnobs["rand_type"])}
            data-testid="rand-type"
          >
            {choices.map((c) => (
              <option key={c.kind} value={c.kind}>
                {c.label}
              </option>
            ))}
          </select>
        </label>
        {(chosen?.parameters ?? []).map((k) => (
          <label className="field" key={k}>
            <span>{PARAMETER_LABELS[k]}</span>
            <input
              type="number"
              step="any"
              value={w[k] ?? ""}
              onChange={(e) => setW(k, typed(e.target.value))}
              data-testid={testId(k)}
            />
          </label>
        ))}
      </div>
    </fieldset>
  );
}

export function TransactionMix({ form, update }: { form: PlanForm; update: Update }) {
  const w = form.workload;
  const setW = <K extends keyof WorkloadKnobs>(k: K, v: WorkloadKnobs[K]) =>
    update((p) => ({ ...p, workload: { ...p.workload, [k]: v } }));
  return (
    <details className="panel" data-testid="advanced">
      <summary>Advanced: the transaction mix of the OLTP scenarios</summary>
      <div className="fields" style={{ marginTop: 8 }}>
        {MIX.map(([k, label]) => (
          <label className="field" key={k}>
            <span>{label}</span>
            <input
              type="number"
              min={0}
              value={w[k]}
              onChange={(e) => setW(k, Math.max(0, Math.floor(Number(e.target.value) || 0)))}
              data-testid={testId(k)}
            />
          </label>
        ))}
      </div>
      <label className="check" style={{ marginTop: 8 }}>
        <input type="checkbox" checked={w.skip_trx} onChange={(e) => setW("skip_trx", e.target.checked)} data-testid="skip-trx" />
        Run the queries without BEGIN / COMMIT (autocommit)
      </label>
    </details>
  );
}

/** Prewarm's gate: an empty field runs one pass of the scans. */
export function PrewarmGate({ form, update }: { form: PlanForm; update: Update }) {
  const gate = form.prewarm_until_hit_rate;
  return (
    <label className="field" style={{ width: 260 }}>
      <span>Repeat prewarm until the hit rate reaches (%)</span>
      <input
        type="number"
        step="any"
        placeholder="one pass"
        disabled={!form.prewarm}
        value={gate ?? ""}
        onChange={(e) => {
          const raw = e.target.value;
          update((p) => ({ ...p, prewarm_until_hit_rate: raw.trim() === "" ? null : typed(raw) }));
        }}
        data-testid="prewarm-until-hit-rate"
      />
    </label>
  );
}

const ISOLATION_LABELS: Record<TpccIsolation, string> = {
  read_committed: "READ COMMITTED (RC)",
  repeatable_read: "REPEATABLE READ (RR, the default)",
  serializable: "SERIALIZABLE (SER)",
};

/** The tpcc scenario's data and options, shown when Rust says the scenarios read
 *  TPC-C's tables (`dataset_fields.warehouses`). The form's `tables` counts its sets of
 *  tables, as sysbench-tpcc's `--tables` does. */
export function TpccData({ form, update }: { form: PlanForm; update: Update }) {
  const t = form.workload.tpcc;
  const setT = <K extends keyof TpccKnobs>(k: K, v: TpccKnobs[K]) =>
    update((p) => ({ ...p, workload: { ...p.workload, tpcc: { ...p.workload.tpcc, [k]: v } } }));
  const flags: [keyof TpccKnobs & ("use_fk" | "force_pk" | "enable_purge"), string][] = [
    ["use_fk", "Create the foreign keys"],
    ["force_pk", "Give the history table a primary key"],
    ["enable_purge", "Add the purge transaction to the mix"],
  ];
  return (
    <div className="stack" data-testid="tpcc-data">
      <div className="fields">
        <label className="field">
          <span>Warehouses</span>
          <input
            type="number"
            min={1}
            value={t.warehouses}
            onChange={(e) => setT("warehouses", Math.floor(Number(e.target.value) || 0))}
            data-testid="tpcc-warehouses"
          />
        </label>
        <label className="field">
          <span>Isolation level</span>
          <select value={t.trx_level} onChange={(e) => setT("trx_level", e.target.value as TpccIsolation)} data-testid="tpcc-trx-level">
            {(Object.keys(ISOLATION_LABELS) as TpccIsolation[]).map((k) => (
              <option key={k} value={k}>
                {ISOLATION_LABELS[k]}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Storage engine</span>
          <input value={t.storage_engine} onChange={(e) => setT("storage_engine", e.target.value)} data-testid="tpcc-storage-engine" />
        </label>
        <label className="field">
          <span>Table options</span>
          <input value={t.table_options} onChange={(e) => setT("table_options", e.target.value)} data-testid="tpcc-table-options" />
        </label>
      </div>
      <div className="row">
        {flags.map(([k, label]) => (
          <label className="check" key={k}>
            <input type="checkbox" checked={t[k]} onChange={(e) => setT(k, e.target.checked)} data-testid={`tpcc-${testId(k)}`} />
            {label}
          </label>
        ))}
      </div>
    </div>
  );
}
