// What both chart components take from the theme: colours from its CSS variables, and a
// number that changes whenever the theme does (uPlot takes its colours once, when built,
// so a chart rebuilds on a new version).
import { useEffect, useState } from "react";

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
