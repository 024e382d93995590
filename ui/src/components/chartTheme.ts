// What both chart components take from the theme: colours from its CSS variables, a
// number that changes whenever the theme does (uPlot takes its colours once, when built,
// so a chart rebuilds on a new version), and the y axis's width from its labels.
import { useEffect, useState } from "react";
import type uPlot from "uplot";

export function cssVar(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || "#888";
}

/** The axis style of every chart: muted labels over a faint grid. */
export function axisStyle() {
  const grid = { stroke: cssVar("--grid"), width: 1 };
  return { stroke: cssVar("--muted"), grid, ticks: grid };
}

/** Bumps when `data-theme` on <html> changes (state/app.tsx sets it, also when the
 *  system's preference changes under "follow the system"). */
export function useThemeVersion(): number {
  const [v, setV] = useState(0);
  useEffect(() => {
    const mo = new MutationObserver(() => setV((x) => x + 1));
    mo.observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
    return () => mo.disconnect();
  }, []);
  return v;
}

/** The narrowest y axis: a chart with one-digit labels still leaves room for its ticks. */
const MIN_AXIS = 40;

/** The y axis as wide as its longest tick label, measured in the axis's own font, plus
 *  its ticks and gap: a fixed width cut "100,000" to "00,000" on the Compare screen's
 *  curves. uPlot's `size` callback (it sizes the axes in a few passes; past the first
 *  two, the size found is kept so the layout settles). */
export function fitLabels(u: uPlot, values: string[] | null, axisIdx: number, cycleNum: number): number {
  const axis = u.axes[axisIdx];
  if (cycleNum > 1) return (axis as { _size?: number })._size ?? MIN_AXIS;
  const longest = (values ?? []).reduce((a, v) => (v.length > a.length ? v : a), "");
  u.ctx.font = axis.font?.[0] ?? u.ctx.font;
  // The canvas measures in device pixels; the axis size is in CSS pixels.
  const text = longest ? u.ctx.measureText(longest).width / devicePixelRatio : 0;
  return Math.max(MIN_AXIS, Math.ceil(text + (axis.ticks?.size ?? 10) + (axis.gap ?? 5) + 4));
}
