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
}

export function Chart({ title, x, lines, height = 190, xLabel = "s", testId, wide }: Props) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const shape = lines.map((l) => l.label).join("|");
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
      axes: [{ ...axis, label: xLabel, labelSize: 16 }, { ...axis, size: fitLabels }],
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
  }, [shape, height, xLabel, theme]);

  useEffect(() => {
    plot.current?.setData([x, ...lines.map((l) => l.values)] as uPlot.AlignedData);
  }, [x, lines]);

  return (
    <figure className={wide ? "chart panel wide" : "chart panel"} aria-label={title} data-testid={testId} data-points={x.length} style={{ margin: 0 }}>
      <figcaption className="title">{title}</figcaption>
      <div ref={box} />
    </figure>
  );
}
