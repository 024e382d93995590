// App-wide state: the screen, the chosen environment, the plan form of that
// environment, the run in progress and the theme. Screens read it through useApp().
import { createContext, useCallback, useContext, useEffect, useMemo, useReducer, useState, type ReactNode } from "react";
import type { ChecksView, PlanForm } from "../bindings";
import { emptyRun, runReducer, type RunAction, type RunView } from "./run";

export type ScreenId = "environments" | "checks" | "plan" | "run" | "history" | "compare";
export type Theme = "system" | "light" | "dark";

/** The last checks run, with the environment and plan they were run for: Start run
 *  follows their `start_refusal` (Rust's preflight decision) while the plan is unchanged. */
export interface LastChecks {
  env: string;
  form: PlanForm;
  view: ChecksView;
}

/** The refusal the last checks give a run of `form` in `env`, when they were run for
 *  that very plan (a changed plan has not been checked yet). */
export function startRefusal(last: LastChecks | null, env: string | null, form: PlanForm | null): string | null {
  if (!last || !env || !form || last.env !== env || JSON.stringify(last.form) !== JSON.stringify(form)) return null;
  return last.view.start_refusal;
}

export const SCREENS: { id: ScreenId; label: string; needsEnv: boolean }[] = [
  { id: "environments", label: "Environments", needsEnv: false },
  { id: "checks", label: "Checks", needsEnv: true },
  { id: "plan", label: "Plan", needsEnv: true },
  { id: "run", label: "Run", needsEnv: false },
  { id: "history", label: "History", needsEnv: false },
  { id: "compare", label: "Compare", needsEnv: false },
];

interface AppState {
  screen: ScreenId;
  go: (s: ScreenId) => void;
  env: string | null;
  setEnv: (e: string | null) => void;
  form: PlanForm | null;
  setForm: React.Dispatch<React.SetStateAction<PlanForm | null>>;
  run: RunView;
  dispatchRun: (a: RunAction) => void;
  theme: Theme;
  setTheme: (t: Theme) => void;
  checks: LastChecks | null;
  setChecks: (c: LastChecks | null) => void;
}

const Ctx = createContext<AppState | null>(null);

export function AppProvider({ children, initialScreen = "environments" }: { children: ReactNode; initialScreen?: ScreenId }) {
  const [screen, go] = useState<ScreenId>(initialScreen);
  const [env, setEnvRaw] = useState<string | null>(null);
  const [form, setForm] = useState<PlanForm | null>(null);
  const [run, dispatchRun] = useReducer(runReducer, undefined, () => emptyRun());
  const [checks, setChecks] = useState<LastChecks | null>(null);
  const [theme, setTheme] = useState<Theme>(() => (localStorage.getItem("theme") as Theme) || "system");

  // A new environment starts from its own profile's plan.
  const setEnv = useCallback((e: string | null) => {
    setEnvRaw((prev) => {
      if (prev !== e) setForm(null);
      return e;
    });
  }, []);

  // <html data-theme> always names the theme in use ("system" is resolved here and
  // followed when the system's preference changes), so the stylesheet has one dark block.
  useEffect(() => {
    const root = document.documentElement;
    const mq = window.matchMedia?.("(prefers-color-scheme: dark)");
    const apply = () => root.setAttribute("data-theme", theme === "system" ? (mq?.matches ? "dark" : "light") : theme);
    apply();
    localStorage.setItem("theme", theme);
    if (theme !== "system") return;
    mq?.addEventListener?.("change", apply);
    return () => mq?.removeEventListener?.("change", apply);
  }, [theme]);

  const value = useMemo(
    () => ({ screen, go, env, setEnv, form, setForm, run, dispatchRun, theme, setTheme, checks, setChecks }),
    [screen, env, setEnv, form, run, theme, checks],
  );
  return <Ctx.Provider value={value}>{children}</Ctx.Provider>;
}

export function useApp(): AppState {
  const v = useContext(Ctx);
  if (!v) throw new Error("useApp outside AppProvider");
  return v;
}
