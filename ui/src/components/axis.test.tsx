// The charts' y axes are as wide as their labels: uPlot asks the axis's `size` callback
// for a width given the tick labels it is about to draw, and the callback must leave room
// for the longest one (measured in the axis's font), its tick and its gap. A fixed width
// cut the Compare screen's error-bar curves' "100,000" to "00,000".
import { describe, expect, it, vi } from "vitest";
import { render } from "@testing-library/react";
import { made } from "../test/uplot";

vi.mock("uplot", () => import("../test/uplot"));
vi.mock("uplot/dist/uPlot.min.css", () => ({}));

import { Chart } from "./Chart";
import { DynoChart } from "./DynoChart";

type SizeFn = (u: unknown, values: string[] | null, axisIdx: number, cycleNum: number) => number;
interface Opts {
  axes: { size?: number | SizeFn }[];
}

/** A canvas whose font has a fixed advance per character (`px` CSS pixels at a device
 *  pixel ratio of `ratio`), and a y axis with uPlot's default tick size and gap. */
function plotMeasuring(px: number, ratio: number) {
  const fonts: string[] = [];
  const ctx = {
    font: "",
    measureText(s: string) {
      fonts.push(ctx.font);
      return { width: s.length * px * ratio };
    },
  };
  const axis = { font: ["12px system-ui", 12], ticks: { size: 10 }, gap: 5 };
  return { u: { ctx, axes: [{}, axis] }, axis, fonts };
}

/** What the y axis needs for `labels`: the widest label, its tick and its gap. */
function needed(labels: string[], px: number, axis: { ticks: { size: number }; gap: number }) {
  return Math.max(...labels.map((l) => l.length * px)) + axis.ticks.size + axis.gap;
}

function ySize(opts: Opts): SizeFn {
  const size = opts.axes[1].size;
  expect(typeof size, "the y axis is sized from its labels, not fixed").toBe("function");
  return size as SizeFn;
}

const LADDERS: string[][] = [
  ["0", "5", "10"],
  ["0", "20,000", "40,000", "60,000", "80,000", "100,000"],
  ["0", "250,000", "500,000", "750,000", "1,000,000", "1,250,000"],
  ["0.00", "0.25", "0.50"],
];

describe("chart axes fit their labels", () => {
  it("the dyno curve's y axis (the Compare screen's, with error bars) holds its longest label", () => {
    made.opts.length = 0;
    render(
      <DynoChart
        title="TPS"
        threads={[1, 8, 64]}
        curves={[{ label: "a", color: "--chart-1", values: [48272, 97000, 121000], bars: [{ lower: 40000, upper: 57467 }, null, null] }]}
      />,
    );
    const size = ySize(made.opts.at(-1) as Opts);
    for (const ratio of [1, 2]) {
      for (const labels of LADDERS) {
        const p = plotMeasuring(7.2, ratio);
        vi.stubGlobal("devicePixelRatio", ratio);
        const w = size(p.u, labels, 1, 0);
        expect(w, `${labels.at(-1)} at ${ratio}x`).toBeGreaterThanOrEqual(needed(labels, 7.2, p.axis));
        // Measured in the axis's own font.
        expect(p.fonts.at(-1)).toBe("12px system-ui");
      }
    }
    vi.unstubAllGlobals();
  });

  it("the timeline charts' y axis holds its longest label too", () => {
    made.opts.length = 0;
    render(<Chart title="tps" x={[1, 2]} lines={[{ label: "tps", color: "--chart-1", values: [100000, 120000] }]} />);
    const size = ySize(made.opts.at(-1) as Opts);
    for (const labels of LADDERS) {
      const p = plotMeasuring(8, 1);
      expect(size(p.u, labels, 1, 0)).toBeGreaterThanOrEqual(needed(labels, 8, p.axis));
    }
  });

  it("a short label still leaves room for the ticks, and a settled size is kept", () => {
    made.opts.length = 0;
    render(<DynoChart title="t" threads={[1, 8]} curves={[{ label: "a", color: "--chart-1", values: [1, 2] }]} />);
    const size = ySize(made.opts.at(-1) as Opts);
    const p = plotMeasuring(7, 1);
    expect(size(p.u, ["1"], 1, 0)).toBeGreaterThanOrEqual(needed(["1"], 7, p.axis));
    (p.axis as { _size?: number })._size = 77;
    expect(size(p.u, ["1,000,000"], 1, 2)).toBe(77);
  });
});
