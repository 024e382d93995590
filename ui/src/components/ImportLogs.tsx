// History's "Import sysbench logs…": an environment and a scenario (both optional), then
// Rust opens the file dialog (the page never names a file) and files each chosen log as a
// run. The result says what was imported, which files were skipped as duplicates, and
// why each refused file was refused; the words are Rust's.
import { useState } from "react";
import { commands, type SysbenchImportResult } from "../bindings";
import { AppFailure, call, message } from "../api";
import { count } from "../state/format";
import { ErrorNote } from "./bits";

export function ImportLogs({ env: current, onImported, onClose }: {
  /** The environment in use, proposed for the runs. */
  env: string | null;
  onImported: () => Promise<void> | void;
  onClose: () => void;
}) {
  const [env, setEnv] = useState(current ?? "");
  const [scenario, setScenario] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<SysbenchImportResult | null>(null);

  async function choose() {
    setBusy(true);
    setError(null);
    try {
      const r = await call(commands.importSysbenchLogs({ env: env.trim() || null, scenario: scenario.trim() || null }));
      setResult(r);
      if (r.imported.length > 0) await onImported();
    } catch (e) {
      // A closed dialog is not a failure.
      if (!(e instanceof AppFailure && e.code === "dismissed")) setError(message(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="panel stack" aria-label="Import sysbench logs" data-testid="import-logs">
      <div className="row">
        <label className="field">
          <span>Environment</span>
          <input type="text" value={env} placeholder="imported" onChange={(e) => setEnv(e.target.value)} data-testid="import-env" />
        </label>
        <label className="field">
          <span>Scenario, when the file name does not tell</span>
          <input
            type="text"
            value={scenario}
            placeholder="from the file name or the statement mix"
            onChange={(e) => setScenario(e.target.value)}
            data-testid="import-scenario"
          />
        </label>
        <button className="btn primary" onClick={() => void choose()} disabled={busy} data-testid="import-choose">
          {busy ? "Importing…" : "Choose the logs…"}
        </button>
        <button className="btn" onClick={onClose}>
          Close
        </button>
      </div>
      <ErrorNote error={error} />
      {result && <ImportOutcome result={result} />}
    </section>
  );
}

function ImportOutcome({ result }: { result: SysbenchImportResult }) {
  const { imported, duplicates, refused, notes } = result;
  return (
    <div className="stack" role="status" data-testid="import-result">
      <div className={`notice ${refused.length > 0 ? "warn" : "ok"}`} data-testid="import-summary">
        Imported {count(imported.length, "run")} into {result.env}
        {duplicates.length > 0 && `, ${count(duplicates.length, "duplicate")} skipped`}
        {refused.length > 0 && `, ${count(refused.length, "file")} refused`}.
      </div>
      {imported.length > 0 && (
        <ul data-testid="import-imported">
          {imported.map((r) => (
            <li key={r.run_id}>
              {r.file}: run #{r.run_id}, {r.steps.join(", ")}
              {r.state !== "complete" && ` (${r.state})`}
            </li>
          ))}
        </ul>
      )}
      {refused.length > 0 && (
        <ul className="field-error" data-testid="import-refused">
          {refused.map((p, i) => (
            <li key={i} data-file={p.file}>
              {p.message}
            </li>
          ))}
        </ul>
      )}
      {duplicates.length > 0 && (
        <details>
          <summary>Skipped as duplicates ({duplicates.length})</summary>
          <ul data-testid="import-duplicates">{duplicates.map((p, i) => <li key={i}>{p.message}</li>)}</ul>
        </details>
      )}
      {notes.length > 0 && (
        <ul className="sub" data-testid="import-notes">{notes.map((n, i) => <li key={i}>{n}</li>)}</ul>
      )}
    </div>
  );
}
