// A dyno curve: a figure against the thread count, one line per run, uPlot. Separate
// from Chart (seconds on a linear axis): thread ladders double (1, 8, 16 … 128), so the
// x axis is logarithmic with a tick at each thread count of the ladder, and every
// measured step is drawn as a point. Values come from Rust's report model as they are.
import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { axisStyle, cssVar, useThemeVersion } from "./chartTheme";

export interface Curve {
  label: string;
  /** CSS variable holding the colour, e.g. "--chart-1". */
  color: string;
  /** Aligned with `threads`; null where the run did not run that thread count. */
  values: (number | null)[];
}

interface Props {
  title: string;
  threads: number[];
  curves: Curve[];
  unit?: string;
  height?: number;
  testId?: string;
}

export function DynoChart({ title, threads, curves, unit = "", height = 210, testId }: Props) {
  const box = useRef<HTMLDivElement>(null);
  const theme = useThemeVersion();
  // Rebuilt whenever anything changes: a comparison is recomputed, not streamed.
  const key = JSON.stringify([threads, curves, unit, height, theme]);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const axis = axisStyle();
    // A log scale needs two distinct, positive thread counts.
    const log = threads.length > 1 && threads[0] > 0;
    const opts: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height,
      legend: { show: true },
      cursor: { drag: { x: false, y: false } },
      scales: { x: log ? { time: false, distr: 3, log: 2 } : { time: false } },
      axes: [
        { ...axis, label: "threads", labelSize: 16, splits: () => threads, values: (_u, v) => v.map(String) },
        { ...axis, size: 58 },
      ],
      series: [
        { label: "threads" },
        ...curves.map((c) => ({
          label: c.label,
          stroke: cssVar(c.color),
          fill: undefined,
          width: 2,
          points: { show: true, size: 7, fill: cssVar(c.color) },
          spanGaps: true,
          value: (_u: uPlot, v: number | null) => (v === null || v === undefined ? "—" : `${v.toLocaleString("en-US", { maximumFractionDigits: 2 })}${unit}`),
        })),
      ],
    };
    const u = new uPlot(opts, [threads, ...curves.map((c) => c.values)] as uPlot.AlignedData, el);
    const ro = new ResizeObserver(() => u.setSize({ width: Math.max(200, el.clientWidth), height }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      u.destroy();
    };
    // `key` stands for threads, curves, unit, height and the theme.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);

  return (
    <figure className="chart panel" aria-label={title} data-testid={testId} data-points={threads.length} data-lines={curves.length} style={{ margin: 0 }}>
      <figcaption className="title">{title}</figcaption>
      <div ref={box} />
    </figure>
  );
}
