// The runs of the history, as History and Compare show them: the filter panel and the
// table. Compare adds a checkbox per run (`picked`); History opens a run on click.
import type { RunFilter, RunRow, RunStateName } from "../bindings";
import { Badge } from "./bits";
import { duration, num } from "../state/format";

const STATES: RunStateName[] = ["complete", "cancelled", "failed", "interrupted", "running"];

export function RunFilters({ filter, envs, onChange }: { filter: RunFilter; envs: string[]; onChange: (f: RunFilter) => void }) {
  return (
    <div className="panel fields" role="search" aria-label="Filter runs">
      <label className="field">
        <span>Environment</span>
        <select value={filter.env ?? ""} onChange={(e) => onChange({ ...filter, env: e.target.value || null })} data-testid="filter-env">
          <option value="">all</option>
          {envs.map((e) => <option key={e} value={e}>{e}</option>)}
        </select>
      </label>
      <label className="field">
        <span>State</span>
        <select value={filter.state ?? ""} onChange={(e) => onChange({ ...filter, state: (e.target.value || null) as RunStateName | null })} data-testid="filter-state">
          <option value="">all</option>
          {STATES.map((s) => <option key={s} value={s}>{s}</option>)}
        </select>
      </label>
      <label className="field">
        <span>From (UTC day)</span>
        <input type="date" value={filter.from_day ?? ""} onChange={(e) => onChange({ ...filter, from_day: e.target.value || null })} />
      </label>
      <label className="field">
        <span>To (UTC day)</span>
        <input type="date" value={filter.to_day ?? ""} onChange={(e) => onChange({ ...filter, to_day: e.target.value || null })} />
      </label>
    </div>
  );
}

interface TableProps {
  rows: RunRow[];
  /** History: the run shown below the table, and how to open one. */
  openId?: number | null;
  onOpen?: (id: number) => void;
  /** Compare: the runs ticked, and how to tick one. */
  picked?: number[];
  onPick?: (id: number, on: boolean) => void;
}

export function RunsTable({ rows, openId, onOpen, picked, onPick }: TableProps) {
  const picking = picked !== undefined && onPick !== undefined;
  const cols = picking ? 9 : 8;
  return (
    <table className="data" aria-label="Runs" data-testid="runs-table">
      <thead>
        <tr>
          {picking && <th><span className="visually-hidden">Pick</span></th>}
          <th className="num">Run</th>
          <th>Environment</th>
          <th>State</th>
          <th>Started (UTC)</th>
          <th className="num">Duration</th>
          <th className="num">Steps</th>
          <th>Scenarios</th>
          <th className="num">Max TPS</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => {
          const on = picking && picked.includes(r.id);
          const act = () => (picking ? onPick(r.id, !on) : onOpen?.(r.id));
          return (
            <tr
              key={r.id}
              className="selectable"
              tabIndex={picking ? undefined : 0}
              aria-selected={picking ? on : openId === r.id}
              onClick={act}
              onKeyDown={picking ? undefined : (e) => (e.key === "Enter" || e.key === " ") && act()}
              data-testid={`run-${r.id}`}
              data-state={r.state}
              data-env={r.env}
            >
              {picking && (
                <td onClick={(e) => e.stopPropagation()}>
                  <input
                    type="checkbox"
                    checked={on}
                    onChange={(e) => onPick(r.id, e.target.checked)}
                    aria-label={`Compare run #${r.id} (${r.env})`}
                    data-testid={`pick-run-${r.id}`}
                  />
                </td>
              )}
              <td className="num">#{r.id}</td>
              <td>{r.env}</td>
              <td><Badge kind={r.state} /></td>
              <td>{r.started}</td>
              <td className="num">{duration(r.duration_s)}</td>
              <td className="num">{r.steps}</td>
              <td>{r.scenarios.join(", ")}</td>
              <td className="num">{num(r.max_tps, 1)}</td>
            </tr>
          );
        })}
        {rows.length === 0 && (
          <tr><td colSpan={cols} className="sub">No runs match.</td></tr>
        )}
      </tbody>
    </table>
  );
}
