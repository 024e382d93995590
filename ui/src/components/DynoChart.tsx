// A dyno curve: a figure against the thread count, one line per run, uPlot. Separate
// from Chart (seconds on a linear axis): thread ladders double (1, 8, 16 … 128), so the
// x axis is logarithmic with a tick at each thread count of the ladder, and every
// measured step is drawn as a point, with its 95% interval as an error bar when it has
// one. Values and bar ends come from Rust's report model as they are; uPlot has no
// error bars of its own, so a draw hook strokes them onto its canvas.
import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import type { ErrorBar } from "../bindings";
import { axisStyle, cssVar, fitLabels, useThemeVersion } from "./chartTheme";

export interface Curve {
  label: string;
  /** CSS variable holding the colour, e.g. "--chart-1". */
  color: string;
  /** Aligned with `threads`; null where the run did not run that thread count. */
  values: (number | null)[];
  /** The ends of each value's 95% interval, aligned with `values`; null: no bar. */
  bars?: (ErrorBar | null)[];
}

/** Error bars drawn over the series of `curves` (uPlot's series 1…n). */
function errorBars(curves: Curve[]): uPlot.Plugin {
  return {
    hooks: {
      draw: [
        (u: uPlot) => {
          const ctx = u.ctx;
          const cap = 4 * devicePixelRatio;
          ctx.save();
          // An interval may reach past the axis (a wide one below zero): clip to the plot.
          const { left, top, width, height } = u.bbox;
          ctx.beginPath();
          ctx.rect(left, top, width, height);
          ctx.clip();
          ctx.lineWidth = 1.5 * devicePixelRatio;
          curves.forEach((c, i) => {
            if (!c.bars || u.series[i + 1]?.show === false) return;
            ctx.strokeStyle = cssVar(c.color);
            ctx.beginPath();
            c.bars.forEach((b, j) => {
              const x = u.data[0][j];
              if (!b || b.lower === null || b.upper === null || x === null || x === undefined) return;
              const px = u.valToPos(x, "x", true);
              const lo = u.valToPos(b.lower, "y", true);
              const hi = u.valToPos(b.upper, "y", true);
              ctx.moveTo(px, lo);
              ctx.lineTo(px, hi);
              ctx.moveTo(px - cap, lo);
              ctx.lineTo(px + cap, lo);
              ctx.moveTo(px - cap, hi);
              ctx.lineTo(px + cap, hi);
            });
            ctx.stroke();
          });
          ctx.restore();
        },
      ],
    },
  };
}

/** The y range holding every value and every bar end, with a little room. */
function yRange(curves: Curve[]): uPlot.Range.Function {
  return (_u, min, max) => {
    let lo = min;
    let hi = max;
    for (const c of curves) {
      for (const b of c.bars ?? []) {
        if (b?.lower == null || b.upper == null) continue;
        lo = Math.min(lo, b.lower);
        hi = Math.max(hi, b.upper);
      }
    }
    const pad = (hi - lo) * 0.08 || Math.abs(hi) * 0.1 || 1;
    return [Math.max(0, lo - pad), hi + pad];
  };
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
      scales: { x: log ? { time: false, distr: 3, log: 2 } : { time: false }, y: { range: yRange(curves) } },
      plugins: [errorBars(curves)],
      axes: [
        { ...axis, label: "threads", labelSize: 16, splits: () => threads, values: (_u, v) => v.map(String) },
        { ...axis, size: fitLabels },
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
    <figure className="chart panel" aria-label={title} data-testid={testId} data-points={threads.length} data-lines={curves.length} data-bars={curves.reduce((n, c) => n + (c.bars ?? []).filter(Boolean).length, 0)} style={{ margin: 0 }}>
      <figcaption className="title">{title}</figcaption>
      <div ref={box} />
    </figure>
  );
}
