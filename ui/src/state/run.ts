// The Run screen's state: the last snapshot from Rust, plus the chart series and log
// accumulated from the points each snapshot adds. No figures are computed here: the
// reducer only appends what Rust sent.
import type { LogLine, RunSnapshot } from "../bindings";

export const MAX_LOG_LINES = 400;

// Rust's f64 reach TypeScript as `number | null` (JSON has no NaN): y values keep the
// null (a gap in the chart); the x axis is always a number.
export interface Series {
  t: number[];
  tps: (number | null)[];
  qps: (number | null)[];
  latency: (number | null)[];
}

// One series per source, each on its own x axis: the server's OS samples, this client's
// CPU and MySQL's status samples are taken on different beats, and joining them left
// every other point of a line empty. A null y is a real gap (no samples then).
export interface ServerSeries {
  t: number[];
  cpu: (number | null)[];
  disk: (number | null)[];
}

export interface ClientSeries {
  t: number[];
  cpu: (number | null)[];
}

export interface MysqlSeries {
  t: number[];
  qps: (number | null)[];
  tps: (number | null)[];
}

export interface RunView {
  /** Id the page gave the run when it started it; snapshots of older runs are dropped. */
  token: number;
  snapshot: RunSnapshot | null;
  /** Why Rust refused to start the run (failed checks, a busy host...), in its words. */
  refused: string | null;
  series: Series;
  server: ServerSeries;
  client: ClientSeries;
  mysql: MysqlSeries;
  log: LogLine[];
}

export const emptyRun = (token = 0): RunView => ({
  token,
  snapshot: null,
  refused: null,
  series: { t: [], tps: [], qps: [], latency: [] },
  server: { t: [], cpu: [], disk: [] },
  client: { t: [], cpu: [] },
  mysql: { t: [], qps: [], tps: [] },
  log: [],
});

export type RunAction =
  | { type: "started"; token: number }
  | { type: "snapshot"; token: number; snapshot: RunSnapshot }
  | { type: "refused"; token: number; message: string }
  | { type: "reset" };

export function runReducer(view: RunView, action: RunAction): RunView {
  switch (action.type) {
    case "reset":
      return emptyRun(view.token);
    case "started":
      return emptyRun(action.token);
    case "refused":
      return action.token === view.token ? { ...view, refused: action.message } : view;
    case "snapshot": {
      if (action.token !== view.token) return view;
      const s = action.snapshot;
      const series = s.points.length
        ? {
            t: [...view.series.t, ...s.points.map((p) => p.t_s ?? 0)],
            tps: [...view.series.tps, ...s.points.map((p) => p.tps)],
            qps: [...view.series.qps, ...s.points.map((p) => p.qps)],
            latency: [...view.series.latency, ...s.points.map((p) => p.latency_ms)],
          }
        : view.series;
      const server = s.server.length
        ? {
            t: [...view.server.t, ...s.server.map((p) => p.t_s ?? 0)],
            cpu: [...view.server.cpu, ...s.server.map((p) => p.cpu_pct)],
            disk: [...view.server.disk, ...s.server.map((p) => p.disk_util_pct)],
          }
        : view.server;
      const client = s.client.length
        ? {
            t: [...view.client.t, ...s.client.map((p) => p.t_s ?? 0)],
            cpu: [...view.client.cpu, ...s.client.map((p) => p.cpu_pct)],
          }
        : view.client;
      const mysql = s.mysql.length
        ? {
            t: [...view.mysql.t, ...s.mysql.map((p) => p.t_s ?? 0)],
            qps: [...view.mysql.qps, ...s.mysql.map((p) => p.qps)],
            tps: [...view.mysql.tps, ...s.mysql.map((p) => p.tps)],
          }
        : view.mysql;
      const log = s.log.length ? [...view.log, ...s.log].slice(-MAX_LOG_LINES) : view.log;
      return { ...view, snapshot: s, series, server, client, mysql, log };
    }
  }
}

export const isFinal = (s: RunSnapshot | null) =>
  s !== null && (s.status === "complete" || s.status === "partial" || s.status === "cancelled" || s.status === "failed");
