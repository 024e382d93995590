// A uPlot line chart. Colours come from the theme's CSS variables; the chart follows
// its container's width. Data arrive from Rust; this component only draws them.
import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { axisStyle, cssVar, fitLabels, useThemeVersion } from "./chartTheme";

export interface Line {
  label: string;
  /** CSS variable holding the colour, e.g. "--chart-1". */
  color: string;
  values: (number | null)[];
  unit?: string;
}

interface Props {
  title: string;
  x: number[];
  lines: Line[];
  height?: number;
  /** X axis label (seconds since the run started by default). */
  xLabel?: string;
  testId?: string;
  /** Spans the whole row of a chart grid. */
  wide?: boolean;
  /** x values marked with a dashed vertical line (a trend's change points). */
  markers?: number[];
  /** Ticks on whole x values only (run numbers). */
  wholeX?: boolean;
}

/** Tick steps of a whole-numbered x axis. */
const WHOLE_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];

/** A dashed vertical line across the plot at each of `markers`' x values. */
function markerLines(markers: number[]): uPlot.Plugin {
  return {
    hooks: {
      draw: [
        (u: uPlot) => {
          if (markers.length === 0) return;
          const ctx = u.ctx;
          const { top, height } = u.bbox;
          ctx.save();
          ctx.strokeStyle = cssVar("--warn");
          ctx.lineWidth = 1.5 * devicePixelRatio;
          ctx.setLineDash([5 * devicePixelRatio, 4 * devicePixelRatio]);
          ctx.beginPath();
          for (const m of markers) {
            const px = u.valToPos(m, "x", true);
            ctx.moveTo(px, top);
            ctx.lineTo(px, top + height);
          }
          ctx.stroke();
          ctx.restore();
        },
      ],
    },
  };
}

export function Chart({ title, x, lines, height = 190, xLabel = "s", testId, wide, markers = [], wholeX = false }: Props) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const shape = lines.map((l) => l.label).join("|");
  const marked = markers.join(",");
  const theme = useThemeVersion();

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const axis = axisStyle();
    const opts: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height,
      legend: { show: true },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: false } },
      plugins: [markerLines(markers)],
      axes: [{ ...axis, label: xLabel, labelSize: 16, ...(wholeX ? { incrs: WHOLE_STEPS } : {}) }, { ...axis, size: fitLabels }],
      series: [
        { label: xLabel },
        ...lines.map((l) => ({
          label: l.label,
          stroke: cssVar(l.color),
          width: 2,
          // Each chart gets one series per source (see state/run.ts), so a null is a
          // time without samples: the line breaks there (uPlot's default).
          value: (_u: uPlot, v: number | null) => (v === null || v === undefined ? "—" : `${v.toFixed(1)}${l.unit ?? ""}`),
        })),
      ],
    };
    const u = new uPlot(opts, [x, ...lines.map((l) => l.values)] as uPlot.AlignedData, el);
    plot.current = u;
    const ro = new ResizeObserver(() => u.setSize({ width: Math.max(200, el.clientWidth), height }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      u.destroy();
      plot.current = null;
    };
    // Rebuilt only when the set of lines or the theme changes; data go through setData.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [shape, height, xLabel, theme, marked, wholeX]);

  useEffect(() => {
    plot.current?.setData([x, ...lines.map((l) => l.values)] as uPlot.AlignedData);
  }, [x, lines]);

  return (
    <figure className={wide ? "chart panel wide" : "chart panel"} aria-label={title} data-testid={testId} data-points={x.length} data-markers={marked || undefined} style={{ margin: 0 }}>
      <figcaption className="title">{title}</figcaption>
      <div ref={box} />
    </figure>
  );
}
