// Snapshots and forms shaped like the Rust side's, for component and state tests.
import type { PlanForm, PlanPreview, RunSnapshot, StepRow } from "../bindings";

export const step = (index: number, over: Partial<StepRow> = {}): StepRow => ({
  index,
  scenario: "oltp_point_select",
  threads: [1, 2, 4][index] ?? 8,
  status: "pending",
  tps: null,
  qps: null,
  p95_ms: null,
  p99_ms: null,
  avg_ms: null,
  errors: null,
  reconnects: null,
  steady_tps: null,
  client_cpu_pct: null,
  ...over,
});

export const snapshot = (over: Partial<RunSnapshot> = {}): RunSnapshot => ({
  run_id: 3,
  env: "sandbox",
  status: "running",
  phase_label: "oltp_point_select @ 1 threads",
  phase_number: 1,
  phase_count: 3,
  elapsed_s: 2,
  progress_pct: 25,
  eta_s: 6,
  current_step: 0,
  step_elapsed_s: 2,
  step_planned_s: 4,
  cooldown_left_s: null,
  prepare: null,
  points: [],
  server: [],
  steps: [step(0, { status: "running" }), step(1), step(2)],
  log: [],
  errors_total: 0,
  reconnects_total: 0,
  failure: null,
  history_note: null,
  ...over,
});

export const form: PlanForm = {
  scenarios: ["oltp_point_select"],
  threads: [1, 8, 16, 32, 64, 128],
  time_s: 30,
  warmup_s: 0,
  cooldown_s: 0,
  tables: 1,
  table_size: 10000,
  prepare: true,
  prewarm: false,
  cleanup: false,
};

export const preview: PlanPreview = {
  phases: [
    { label: "prepare oltp_point_select (4 threads)", seconds: null },
    { label: "oltp_point_select @ 1 threads", seconds: 30 },
  ],
  steps: 6,
  total_seconds: 180,
  open_ended: true,
  peak_connections: 129,
  peak_prepared_statements: 128,
  dataset: {
    bytes: 2260000,
    human: "2.2 MiB",
    buffer_pool_bytes: 268435456,
    buffer_pool_human: "256.0 MiB",
    ratio: 0.01,
    regime: "CPU-bound: the data fits in the buffer pool",
    free_disk_bytes: null,
    free_disk_human: null,
    fits_disk: null,
  },
};
