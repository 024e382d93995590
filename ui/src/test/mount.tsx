// A screen mounted as the app shows it: inside the app's state, with the environment
// "sandbox" chosen and, when given, a run's snapshot already received (the Run screen).
import { render } from "@testing-library/react";
import { useEffect } from "react";
import type { RunSnapshot } from "../bindings";
import { AppProvider, useApp } from "../state/app";

function WithState({ children, snap }: { children: React.ReactNode; snap?: RunSnapshot }) {
  const { setEnv, dispatchRun } = useApp();
  useEffect(() => {
    setEnv("sandbox");
    if (snap) {
      dispatchRun({ type: "started", token: 4 });
      dispatchRun({ type: "snapshot", token: 4, snapshot: snap });
    }
  }, [setEnv, dispatchRun, snap]);
  return <>{children}</>;
}

export const mount = (ui: React.ReactNode, snap?: RunSnapshot) =>
  render(
    <AppProvider>
      <WithState snap={snap}>{ui}</WithState>
    </AppProvider>,
  );
