// Checks: the prerequisite suite for the environment and plan; pass / warn / fail with
// what was seen and why it matters; one-click fixes (SQL the app runs, or a change to the
// plan such as "Drop and prepare again"), the command line behind a disclosure; the
// verdict names the failing and warning checks and jumps to them; the data disk,
// overridable.
import { useState } from "react";
import { Badge, ErrorNote } from "../components/bits";
import { CheckFixes } from "../components/CheckFixes";
import { MeasureServer } from "../components/MeasureServer";
import { useApp } from "../state/app";
import { usePlanForm } from "../state/usePlanForm";
import { useChecks } from "../state/useChecks";
import { count } from "../state/format";

/** The words of a verdict count: "1 failed", "2 warnings", "13 passed", "3 skipped". */
const COUNTED = { fail: (n: number) => `${n} failed`, warn: (n: number) => count(n, "warning"), pass: (n: number) => `${n} passed`, skipped: (n: number) => `${n} skipped` };

/** Brings a check's row into view and focus. */
function jumpTo(id: string) {
  const row = document.querySelector<HTMLElement>(`[data-testid="check-${CSS.escape(id)}"]`);
  row?.scrollIntoView?.({ block: "center", behavior: "smooth" });
  row?.focus();
}

export function Checks() {
  const { go } = useApp();
  const { form, error: formError } = usePlanForm();
  const { env, view, busy, error, applied, runChecks, applyFix, planFix } = useChecks();
  const [devices, setDevices] = useState("");
  const [adminUser, setAdminUser] = useState("");
  const [adminPassword, setAdminPassword] = useState("");
  const deviceList = () => devices.split(/[\s,]+/).filter(Boolean);
  const admin = () => (adminUser.trim() ? { user: adminUser, password: adminPassword } : null);

  const flagged = view ? view.checks.filter((c) => c.verdict === "fail" || c.verdict === "warn") : [];
  const counts = view
    ? (["fail", "warn", "pass", "skipped"] as const).map((k) => [k, view.checks.filter((c) => c.verdict === k).length] as const)
    : [];
  return (
    <div className="stack">
      <div className="screen-head">
        <h1>Checks</h1>
        <span className="sub">{env} — is the server ready for this plan?</span>
        <span className="spacer" />
        <button className="btn primary" onClick={() => runChecks(form, deviceList())} disabled={busy || !form} data-testid="run-checks">
          {busy ? "Checking…" : view ? "Run checks again" : "Run checks"}
        </button>
        <button className="btn" onClick={() => go("plan")}>Plan the test →</button>
      </div>
      <ErrorNote error={formError ?? error} />
      {applied && <div className="notice ok" role="status" data-testid="fix-applied">{applied}</div>}
      {view && (
        <>
          <div className="grid-3">
            <div className="panel">
              <h3>Verdict</h3>
              <div className="row" style={{ marginTop: 6 }} data-testid="checks-worst">
                <Badge kind={view.worst} />
                {counts.map(([k, n]) => n > 0 && <span key={k} className="sub">{COUNTED[k](n)}</span>)}
              </div>
              {flagged.length > 0 && (
                <ul className="flagged" data-testid="checks-flagged">
                  {flagged.map((c) => (
                    <li key={c.id}>
                      <button className="link" onClick={() => jumpTo(c.id)} data-testid={`jump-${c.id}`}>
                        <Badge kind={c.verdict} /> {c.title}
                      </button>
                    </li>
                  ))}
                </ul>
              )}
            </div>
            <div className="panel">
              <h3>Server</h3>
              <div>{view.server ?? "not reached"}</div>
              <div className="sub">OS facts: {view.os_access}</div>
            </div>
            <div className="panel">
              <h3>Data disk</h3>
              {view.data_disks.length === 0 && <div className="sub">not resolved</div>}
              {view.data_disks.slice(0, 1).map((d) => (
                <div key={d.role} data-testid="data-disk">
                  <strong>{d.devices.join(" → ") || "?"}</strong> {d.overridden && <Badge kind="warn">override</Badge>}
                  <div className="sub">{d.path} on {d.mount_point} ({d.fs_type}){d.free ? `, ${d.free}` : ""}</div>
                </div>
              ))}
              <label className="field" style={{ marginTop: 8 }}>
                <span>Override devices (empty = resolved)</span>
                <input type="text" value={devices} onChange={(e) => setDevices(e.target.value)} placeholder="nvme0n1" />
              </label>
            </div>
          </div>
          <section className="panel" aria-label="Check results">
            {view.checks.map((c) => (
              <div className="check" key={c.id} data-testid={`check-${c.id}`} data-verdict={c.verdict} tabIndex={-1}>
                <div><Badge kind={c.verdict} /></div>
                <div className="what">
                  <strong>{c.title}</strong>
                  <div>{c.seen}</div>
                  <div className="why">Why it matters: {c.why}</div>
                  {c.fix_text && <div>Fix: {c.fix_text}</div>}
                  <CheckFixes check={c} busy={busy} onPlanFix={(row, mode) => planFix(row, mode, deviceList())} onApply={(row) => applyFix(row, admin())} />
                </div>
              </div>
            ))}
          </section>
          {view.checks.some((c) => c.action_sql) && (
            <fieldset className="panel">
              <legend>Run fixes as an administrator (used once, not stored)</legend>
              <div className="fields">
                <label className="field">
                  <span>Admin user (empty = the benchmark account)</span>
                  <input type="text" value={adminUser} onChange={(e) => setAdminUser(e.target.value)} data-testid="admin-user" />
                </label>
                <label className="field">
                  <span>Admin password</span>
                  <input type="password" value={adminPassword} onChange={(e) => setAdminPassword(e.target.value)} data-testid="admin-password" />
                </label>
              </div>
            </fieldset>
          )}
          {view.missing.length > 0 && (
            <details className="panel">
              <summary>Not found out ({view.missing.length})</summary>
              <ul>{view.missing.map((m) => <li key={m}>{m}</li>)}</ul>
            </details>
          )}
        </>
      )}
      {!view && !busy && <div className="panel sub">Run the checks to see what the server needs before this plan.</div>}
      <MeasureServer env={env} />
    </div>
  );
}
