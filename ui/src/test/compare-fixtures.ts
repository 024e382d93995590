// A comparison shaped like Rust's CompareView (two runs, one scenario: one cell within
// noise, one regressed)
// and history rows, for the Compare and History screen tests.
import type { CellView, CompareView, DeltaView, RunRow } from "../bindings";

export const runRow = (id: number, env: string): RunRow => ({
  id,
  env,
  state: "complete",
  command: "ladder",
  started: `2026-05-0${id} 12:00:00`,
  duration_s: 30,
  steps: 2,
  scenarios: ["oltp_point_select"],
  max_tps: 1000 * id,
  labels: [],
});

const cell = (threads: number, tps: number): CellView => ({
  threads,
  tps,
  qps: tps * 10,
  p95_ms: 1.5,
  p99_ms: 2.5,
  cpu_pct: 40,
  disk_util_pct: 3,
  cancelled: false,
  tps_interval: { lower: tps * 0.98, upper: tps * 1.02 },
  p95_interval: { lower: 1.4, upper: 1.6 },
});

const delta = (threads: number, tps_pct: number, regressed: boolean): DeltaView => ({
  threads,
  tps_pct,
  qps_pct: tps_pct,
  p95_pct: 0,
  p99_pct: 0,
  cpu_pct: 1,
  tps_range: { lower_pct: tps_pct - 1.5, upper_pct: tps_pct + 1.5 },
  p95_range: { lower_pct: -2, upper_pct: 2 },
  verdict: regressed ? "regressed" : "within_noise",
  verdict_label: regressed ? "REGRESSED" : "within noise",
  noise_pct: 2,
  reasons: regressed ? [`TPS ${tps_pct}% (95% interval ${tps_pct - 1.5}% to ${tps_pct + 1.5}%)`] : [],
});

export const compareView = (): CompareView => ({
  title: "Benchmark comparison: idc vs hw_cloud",
  threshold_pct: 5,
  latency_floor_ms: 0.05,
  baseline: 0,
  envs: [
    { run_id: "1", name: "idc", is_baseline: true, state: "finished", started: "2026-05-01 12:00:00 UTC", steps: 2 },
    { run_id: "2", name: "hw_cloud", is_baseline: false, state: "finished", started: "2026-05-02 12:00:00 UTC", steps: 2 },
  ],
  verdict: {
    compared: 2,
    failed: 1,
    improved: 0,
    within_noise: 1,
    not_judged: 0,
    missing: 0,
    failures: ["hw_cloud oltp_point_select at 2 threads: TPS −12.0% (95% interval −13.5% to −10.5%)"],
  },
  executive_summary: ["This report compares 2 environments.", "hw_cloud delivers 12% less oltp_point_select TPS than idc at 1 of 2 thread counts (REGRESSED; the others within noise)."],
  capacity: [],
  headlines: ["hw_cloud delivers 12% less oltp_point_select TPS than idc at 1 of 2 thread counts (REGRESSED; the others within noise)"],
  scenarios: [
    {
      scenario: "oltp_point_select",
      threads: [1, 2],
      envs: [
        { env: 0, cells: [cell(1, 100), cell(2, 200)], deltas: null, best_threads: 2, knee_evidence: "still rising", bottleneck: "Scaling", bottleneck_evidence: "nothing saturated", advice: "extend the thread ladder" },
        { env: 1, cells: [cell(1, 104), cell(2, 176)], deltas: [delta(1, 4, false), delta(2, -12, true)], best_threads: 2, knee_evidence: "still rising", bottleneck: "Scaling", bottleneck_evidence: "nothing saturated", advice: "extend the thread ladder" },
      ],
    },
  ],
  cold_starts: [],
  warnings: [{ serious: true, text: "the dataset fits in the buffer pool" }],
});
