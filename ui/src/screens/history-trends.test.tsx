// History's "Trends over time": nothing is read until it is opened (it reads every run
// listed), the History filter goes to Rust as it is, and each cell draws what Rust
// computed: the change points as dashed lines at their runs, the level as a line.
import "../test/mocks";
import { describe, expect, it, vi, beforeEach } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { ok } from "../test/mocks";
import { made } from "../test/uplot";
import { runRow } from "../test/compare-fixtures";
import { AppProvider } from "../state/app";
import type { TrendView } from "../bindings";

const commands = vi.hoisted(() => ({
  listRuns: vi.fn(),
  historyTrends: vi.fn(),
}));
vi.mock("../bindings", () => ({ commands }));

import { History } from "./History";

const tps = [1000, 1010, 995, 1005, 990, 1000, 700, 705];
const nightly: TrendView = {
  env: "nightly",
  scenario: "oltp_read_only",
  threads: 4,
  summary: "nightly oltp_read_only @ 4 threads: 8 runs, 2026-11-24 … 2026-12-01",
  changes: ["TPS fell 30.0% (−31.0% … −29.0%) at run 7 (#17, 2026-11-30): 1000.0 → 702.5, p = 0.00001."],
  runs: tps.map((t, i) => ({ run_id: 11 + i, day: `2026-11-${20 + i}`, tps: t, p95_ms: i === 2 ? null : 5 })),
  tps_change_at: [7],
  p95_change_at: [],
  tps_level: tps.map((_, i) => (i < 6 ? 1000 : 702.5)),
  p95_level: tps.map(() => 5),
};

beforeEach(() => {
  vi.clearAllMocks();
  made.opts.length = 0;
  commands.listRuns.mockImplementation(() => ok([runRow(1, "nightly"), runRow(2, "steady")]));
  commands.historyTrends.mockImplementation(() => ok([nightly]));
});

interface Opts {
  series: { label: string }[];
  axes: { incrs?: number[] }[];
  plugins: { hooks: { draw: ((u: unknown) => void)[] } }[];
}

describe("History: trends over time", () => {
  it("reads the trends once opened, for the filter shown, and marks each change point at its run", async () => {
    const user = userEvent.setup();
    render(
      <AppProvider>
        <History />
      </AppProvider>,
    );
    const panel = await screen.findByTestId("trends");
    expect(commands.historyTrends).not.toHaveBeenCalled();
    await user.selectOptions(screen.getByTestId("filter-env"), "nightly");
    await user.click(within(panel).getByText(/Trends over time/));
    await waitFor(() => expect(commands.historyTrends).toHaveBeenCalled());
    expect(commands.historyTrends).toHaveBeenLastCalledWith({ env: "nightly", state: null, from_day: null, to_day: null });

    const cell = await within(panel).findByTestId("trend");
    expect(cell).toHaveAttribute("data-cell", "nightly/oltp_read_only@4");
    expect(within(cell).getByTestId("trend-changes")).toHaveTextContent("TPS fell 30.0%");
    expect(within(cell).getByTestId("trend-tps")).toHaveAttribute("data-markers", "7");
    expect(within(cell).getByTestId("trend-tps")).toHaveAttribute("data-points", "8");
    // No p95 change point: its chart has no marker.
    expect(within(cell).getByTestId("trend-p95")).not.toHaveAttribute("data-markers");
    expect(cell).toHaveTextContent("Run 1 is history run #11 (2026-11-20); run 8 is #18 (2026-11-27)");

    // The marker is drawn at run 7's x, top to bottom of the plot.
    const opts = made.opts as Opts[];
    const chart = opts.find((o) => o.series.some((s) => s.label === "TPS"))!;
    // Runs are whole: no tick at run 2.5.
    expect(chart.axes[0].incrs?.[0]).toBe(1);
    const lines: [number, number][] = [];
    const ctx = {
      save() {},
      restore() {},
      beginPath() {},
      stroke() {},
      setLineDash() {},
      moveTo: (x: number, y: number) => lines.push([x, y]),
      lineTo: (x: number, y: number) => lines.push([x, y]),
    };
    const u = { ctx, bbox: { top: 10, height: 100 }, valToPos: (v: number) => v * 50 };
    chart.plugins.forEach((p) => p.hooks.draw.forEach((d) => d(u)));
    expect(lines).toEqual([
      [350, 10],
      [350, 110],
    ]);
  });

  it("says when no cell has runs enough", async () => {
    const user = userEvent.setup();
    commands.historyTrends.mockImplementation(() => ok([]));
    render(
      <AppProvider>
        <History />
      </AppProvider>,
    );
    await user.click(within(await screen.findByTestId("trends")).getByText(/Trends over time/));
    expect(await screen.findByTestId("trends-none")).toHaveTextContent("a trend needs a series");
    expect(screen.queryByTestId("trend")).toBeNull();
  });
});
