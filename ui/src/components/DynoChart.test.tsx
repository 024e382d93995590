// The dyno curve's error bars: the draw hook strokes one bar with two caps per interval
// Rust passed, none for a missing one or a hidden series, and the y axis holds the bars.
import { describe, expect, it, vi } from "vitest";
import { render } from "@testing-library/react";
import { made } from "../test/uplot";

vi.mock("uplot", () => import("../test/uplot"));
vi.mock("uplot/dist/uPlot.min.css", () => ({}));

import { DynoChart, type Curve } from "./DynoChart";

type Hook = (u: unknown) => void;
interface Opts {
  plugins: { hooks: { draw: Hook[] } }[];
  scales: { y: { range: (u: unknown, min: number, max: number) => [number, number] } };
}

/** A canvas that records the segments drawn on it (moveTo → lineTo). */
function recordingPlot(threads: number[], shown: boolean[]) {
  const segments: [number, number, number, number][] = [];
  let from: [number, number] = [0, 0];
  let clipped = 0;
  const ctx = {
    save() {},
    restore() {},
    rect() {},
    clip: () => (clipped += 1),
    beginPath() {},
    stroke() {},
    moveTo: (x: number, y: number) => (from = [x, y]),
    lineTo: (x: number, y: number) => segments.push([...from, x, y]),
  };
  const u = {
    ctx,
    bbox: { left: 0, top: 0, width: 500, height: 200 },
    data: [threads],
    series: [{}, ...shown.map((show) => ({ show }))],
    // Pixels equal values: the bar's ends are read back directly.
    valToPos: (v: number) => v,
  };
  return { u, segments, clips: () => clipped };
}

describe("DynoChart error bars", () => {
  it("draws a bar with caps for every interval of a shown curve", () => {
    const curves: Curve[] = [
      { label: "a", color: "--chart-1", values: [100, 200], bars: [{ lower: 90, upper: 110 }, null] },
      { label: "b", color: "--chart-2", values: [150, 250], bars: [{ lower: 140, upper: 160 }, { lower: 240, upper: 260 }] },
    ];
    made.opts.length = 0;
    const { getByTestId } = render(<DynoChart title="t" threads={[1, 8]} curves={curves} testId="c" />);
    expect(getByTestId("c")).toHaveAttribute("data-bars", "3");
    const opts = made.opts.at(-1) as Opts;
    const draw = opts.plugins[0].hooks.draw[0];

    const all = recordingPlot([1, 8], [true, true]);
    draw(all.u);
    // Three bars, each a vertical line and two caps.
    expect(all.segments).toHaveLength(9);
    expect(all.clips(), "bars stay inside the plot").toBe(1);
    const verticals = all.segments.filter(([x0, , x1]) => x0 === x1).map(([x, y0, , y1]) => [x, y0, y1]);
    expect(verticals).toEqual([
      [1, 90, 110],
      [1, 140, 160],
      [8, 240, 260],
    ]);

    const hidden = recordingPlot([1, 8], [false, true]);
    draw(hidden.u);
    expect(hidden.segments).toHaveLength(6);

    // The y axis reaches past the values to the bars' ends.
    const [lo, hi] = opts.scales.y.range({}, 100, 250);
    expect(lo).toBeLessThan(90);
    expect(hi).toBeGreaterThan(260);
  });

  it("draws nothing for curves without intervals", () => {
    made.opts.length = 0;
    render(<DynoChart title="t" threads={[1, 8]} curves={[{ label: "a", color: "--chart-1", values: [1, 2] }]} />);
    const draw = (made.opts.at(-1) as Opts).plugins[0].hooks.draw[0];
    const p = recordingPlot([1, 8], [true]);
    draw(p.u);
    expect(p.segments).toHaveLength(0);
  });
});
