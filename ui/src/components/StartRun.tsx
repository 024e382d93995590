// Start run: the button, disabled exactly when the last checks of this very plan say
// the run's own preflight would refuse it (Rust's `start_refusal`), with that reason
// beside it. Plan and a refused start on the Run screen show it.
import { Channel } from "@tauri-apps/api/core";
import { commands, type PlanForm, type RunSnapshot } from "../bindings";
import { call, message } from "../api";
import { startRefusal, useApp } from "../state/app";

let nextToken = 1;

/** Starts a run and wires its channel into the run state. The Run screen is already
 * showing when Rust answers, so a refusal (failed checks...) is told there. */
export function useStartRun() {
  const { env, dispatchRun, go } = useApp();
  return async (form: PlanForm) => {
    if (!env) return;
    const token = nextToken++;
    const channel = new Channel<RunSnapshot>();
    channel.onmessage = (snapshot) => dispatchRun({ type: "snapshot", token, snapshot });
    dispatchRun({ type: "started", token });
    go("run");
    try {
      await call(commands.startRun(env, form, channel));
    } catch (e) {
      dispatchRun({ type: "refused", token, message: message(e) });
    }
  };
}

/** `ready`: the caller's own condition (a valid plan preview, no checks running). */
export function StartRunButton({ ready, onError }: { ready: boolean; onError: (e: string) => void }) {
  const { env, form, checks } = useApp();
  const start = useStartRun();
  const refusal = startRefusal(checks, env, form);
  return (
    <>
      {refusal && (
        <span className="field-error start-refusal" data-testid="start-refusal" title={refusal}>
          Start is off: {refusal}
        </span>
      )}
      <button
        className="btn primary"
        disabled={!ready || !form || refusal !== null}
        onClick={() => form && start(form).catch((e) => onError(message(e)))}
        data-testid="start-run"
      >
        Start run
      </button>
    </>
  );
}
