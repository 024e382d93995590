// The fixes of one check as buttons: a change to the plan's prepare mode ("Drop DB
// Dyno's tables and prepare again"), SQL the app runs ("Apply: SET GLOBAL …"), and the
// command line behind a disclosure. The Checks screen and a refused start on the Run
// screen show the same buttons.
import type { CheckRow, PrepareChoice } from "../bindings";

/** The button of a fix that changes the plan's prepare mode. */
export const PREPARE_FIX: Record<PrepareChoice, string> = {
  always: "Drop DB Dyno's tables and prepare again",
  never: "Read the tables as they are (no prepare)",
  "if-missing": "Reuse the tables (prepare only if missing)",
  resume: "Continue the prepare (keep the complete tables, load the rest)",
};

export function CheckFixes({
  check: c,
  busy,
  onPlanFix,
  onApply,
}: {
  check: CheckRow;
  busy: boolean;
  onPlanFix: (c: CheckRow, mode: PrepareChoice) => void;
  onApply: (c: CheckRow) => void;
}) {
  const flagged = c.verdict === "fail" || c.verdict === "warn";
  return (
    <>
      {c.prepare_fix && flagged && (
        <div className="row">
          <button className="btn primary" disabled={busy} onClick={() => onPlanFix(c, c.prepare_fix!)} data-testid={`plan-fix-${c.id}`}>
            {PREPARE_FIX[c.prepare_fix]}
          </button>
        </div>
      )}
      {c.fix_command && (
        <details>
          <summary>Command line</summary>
          <pre className="notice">{c.fix_command}</pre>
        </details>
      )}
      {c.action_sql && (
        <div className="row">
          <button className="btn primary" disabled={busy} onClick={() => onApply(c)} data-testid={`fix-${c.id}`}>
            Apply: {c.action_sql}
          </button>
        </div>
      )}
    </>
  );
}
