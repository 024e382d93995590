import { describe, expect, it } from "vitest";
import { emptyRun, isFinal, MAX_LOG_LINES, runReducer } from "./run";
import { snapshot } from "../test/fixtures";

const point = (t: number) => ({ t_s: t, step: 0, threads: 1, tps: 100 + t, qps: 1000 + t, latency_ms: 1 + t / 10, errors_ps: 0, reconnects_ps: 0 });

describe("runReducer", () => {
  it("appends the points each snapshot brings and keeps the latest snapshot", () => {
    let v = runReducer(emptyRun(), { type: "started", token: 1 });
    v = runReducer(v, { type: "snapshot", token: 1, snapshot: snapshot({ points: [point(1), point(2)] }) });
    v = runReducer(v, { type: "snapshot", token: 1, snapshot: snapshot({ points: [point(3)], progress_pct: 50 }) });
    expect(v.series.t).toEqual([1, 2, 3]);
    expect(v.series.tps).toEqual([101, 102, 103]);
    expect(v.series.latency[2]).toBeCloseTo(1.3);
    expect(v.snapshot?.progress_pct).toBe(50);
  });

  it("ignores snapshots of an older run", () => {
    let v = runReducer(emptyRun(), { type: "started", token: 2 });
    v = runReducer(v, { type: "snapshot", token: 1, snapshot: snapshot({ points: [point(1)] }) });
    expect(v.snapshot).toBeNull();
    expect(v.series.t).toEqual([]);
  });

  it("keeps the refusal of the run it started, not of an older one", () => {
    let v = runReducer(emptyRun(), { type: "started", token: 3 });
    v = runReducer(v, { type: "refused", token: 2, message: "older" });
    expect(v.refused).toBeNull();
    v = runReducer(v, { type: "refused", token: 3, message: "max_prepared_stmt_count is too low" });
    expect(v.refused).toBe("max_prepared_stmt_count is too low");
    expect(runReducer(v, { type: "started", token: 4 }).refused).toBeNull();
  });

  it("keeps a missing figure as null and caps the log", () => {
    let v = runReducer(emptyRun(), { type: "started", token: 1 });
    const server = [{ t_s: 1, cpu_pct: 40, disk_util_pct: null }];
    const log = Array.from({ length: MAX_LOG_LINES + 10 }, (_, i) => ({ t_s: i, level: "info" as const, text: `line ${i}` }));
    v = runReducer(v, { type: "snapshot", token: 1, snapshot: snapshot({ server, log }) });
    expect(v.server.cpu).toEqual([40]);
    expect(v.server.disk).toEqual([null]);
    expect(v.log).toHaveLength(MAX_LOG_LINES);
    expect(v.log.at(-1)?.text).toBe(`line ${MAX_LOG_LINES + 9}`);
  });

  it("keeps each source on its own axis: the server CPU line has a value at every point", () => {
    // Server samples end at .25 s, the client's CPU is read on whole seconds, MySQL's
    // status in between: each snapshot brings some of each.
    let v = runReducer(emptyRun(), { type: "started", token: 1 });
    for (const sec of [1, 2, 3]) {
      v = runReducer(v, {
        type: "snapshot",
        token: 1,
        snapshot: snapshot({
          server: [{ t_s: sec + 0.25, cpu_pct: 50 + sec, disk_util_pct: 3 }],
          client: [{ t_s: sec + 1, cpu_pct: 10 }],
          mysql: [{ t_s: sec + 0.5, qps: 900, tps: 90 }],
        }),
      });
    }
    expect(v.server.t).toEqual([1.25, 2.25, 3.25]);
    expect(v.server.cpu).toEqual([51, 52, 53]);
    expect(v.client.t).toEqual([2, 3, 4]);
    expect(v.mysql.qps).toEqual([900, 900, 900]);
    for (const s of [v.server.t, v.client.t, v.mysql.t]) {
      expect([...s].sort((a, b) => a - b)).toEqual(s);
    }
  });

  it("a new run starts from empty charts", () => {
    let v = runReducer(emptyRun(), { type: "started", token: 1 });
    v = runReducer(v, { type: "snapshot", token: 1, snapshot: snapshot({ points: [point(1)] }) });
    v = runReducer(v, { type: "started", token: 2 });
    expect(v.series.t).toEqual([]);
    expect(v.token).toBe(2);
  });

  it("knows the final states", () => {
    expect(isFinal(snapshot({ status: "cancelled" }))).toBe(true);
    expect(isFinal(snapshot({ status: "partial" }))).toBe(true);
    expect(isFinal(snapshot({ status: "cancelling" }))).toBe(false);
    expect(isFinal(null)).toBe(false);
  });
});
