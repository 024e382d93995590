// The shell of the page: the navigation (one entry per screen, in the order a DBA
// works), the environment in use, the theme switch.
import { Checks } from "./screens/Checks";
import { Compare } from "./screens/Compare";
import { Environments } from "./screens/Environments";
import { History } from "./screens/History";
import { Plan } from "./screens/Plan";
import { Run } from "./screens/Run";
import { SCREENS, useApp, type ScreenId, type Theme } from "./state/app";
import { isFinal } from "./state/run";
import icon from "../../icons/128x128.png";

const VIEWS: Record<ScreenId, () => React.JSX.Element> = {
  environments: Environments,
  checks: Checks,
  plan: Plan,
  run: Run,
  history: History,
  compare: Compare,
};

export function App() {
  const { screen, go, env, theme, setTheme, run } = useApp();
  const View = VIEWS[screen];
  const running = run.snapshot !== null && !isFinal(run.snapshot);
  return (
    <div className="app">
      <aside className="sidebar">
        <div className="brand">
          <img src={icon} alt="" />
          DB Dyno
        </div>
        <nav aria-label="Screens" className="stack" style={{ gap: 2 }}>
          {SCREENS.map((s, i) => {
            const disabled = s.needsEnv && !env;
            return (
              <button
                key={s.id}
                className="nav-item"
                aria-current={screen === s.id ? "page" : undefined}
                disabled={disabled}
                title={disabled ? "Choose an environment first" : undefined}
                onClick={() => go(s.id)}
                data-testid={`nav-${s.id}`}
              >
                <span className="num">{i + 1}</span>
                {s.label}
                {s.id === "run" && running && <span className="badge running" style={{ marginLeft: "auto" }}>live</span>}
              </button>
            );
          })}
        </nav>
        <div className="sidebar-foot">
          <div>
            Environment:
            <div style={{ color: "var(--text)", fontWeight: 600 }} data-testid="current-env">{env ?? "none chosen"}</div>
          </div>
          <label className="field">
            <span>Theme</span>
            <select value={theme} onChange={(e) => setTheme(e.target.value as Theme)} data-testid="theme">
              <option value="system">follow the system</option>
              <option value="light">light</option>
              <option value="dark">dark</option>
            </select>
          </label>
        </div>
      </aside>
      <main className="main" data-screen={screen}>
        <View />
      </main>
    </div>
  );
}
