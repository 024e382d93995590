// The checks of the chosen environment and plan, shared by the Checks screen and a
// refused start on the Run screen: running them, a fix that changes the plan (the form
// takes it and the checks run again), a fix the app applies as SQL. The results land in
// the app state, where Start run reads Rust's decision (`start_refusal`).
import { useState } from "react";
import { commands, type AdminLogin, type CheckRow, type PlanForm, type PrepareChoice } from "../bindings";
import { call, message } from "../api";
import { PREPARE_FIX } from "../components/CheckFixes";
import { useApp } from "./app";

export function useChecks() {
  const { env, form, setForm, checks, setChecks } = useApp();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [applied, setApplied] = useState<string | null>(null);
  const view = checks && checks.env === env ? checks.view : null;

  async function guarded(work: () => Promise<void>) {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (e) {
      setError(message(e));
    } finally {
      setBusy(false);
    }
  }

  async function runChecks(plan: PlanForm | null = form, devices: string[] = []) {
    if (!env || !plan) return;
    await guarded(async () => {
      setChecks({ env, form: plan, view: await call(commands.runChecks(env, plan, devices)) });
    });
  }

  async function applyFix(c: CheckRow, admin: AdminLogin | null = null) {
    if (!env || !form) return;
    await guarded(async () => {
      const r = await call(commands.applyFix(env, c.id, form, admin));
      setApplied(`Ran ${r.applied_sql}.${r.note ? ` ${r.note}` : ""}`);
      setChecks({ env, form, view: r.checks });
    });
  }

  /** A fix that changes the plan: the form takes it (the Plan screen shows it), and the
   *  checks run again on the changed plan. */
  async function planFix(c: CheckRow, mode: PrepareChoice, devices: string[] = []) {
    if (!form) return;
    const changed = { ...form, prepare: mode };
    setForm(changed);
    // Only the button's first letter lowered: "DB Dyno" keeps its capitals.
    setApplied(`The plan now says prepare = "${mode}" (${PREPARE_FIX[mode].charAt(0).toLowerCase()}${PREPARE_FIX[mode].slice(1)}), for ${c.title}.`);
    await runChecks(changed, devices);
  }

  return { env, form, view, busy, error, applied, runChecks, applyFix, planFix };
}
