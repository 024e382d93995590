// Export of a report through the native save dialog: one button per format. Rust opens
// the dialog and writes the file chosen there; the page never names a path, it only
// shows where the file went (or that the dialog was cancelled).
import { useState } from "react";
import { commands, type CompareRequest, type ExportFormat } from "../bindings";
import { call, message } from "../api";
import { ErrorNote } from "./bits";

const FORMATS: { id: ExportFormat; label: string }[] = [
  { id: "pdf", label: "PDF" },
  { id: "html", label: "HTML" },
  { id: "markdown", label: "Markdown" },
  { id: "csv", label: "CSV" },
];

type Outcome = { saved: string } | { cancelled: ExportFormat } | null;

export function ExportBar({ request, label = "Export" }: { request: CompareRequest; label?: string }) {
  const [busy, setBusy] = useState<ExportFormat | null>(null);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [error, setError] = useState<string | null>(null);

  async function run(format: ExportFormat) {
    setBusy(format);
    setError(null);
    setOutcome(null);
    try {
      const path = await call(commands.exportReport(request, format));
      setOutcome(path === null ? { cancelled: format } : { saved: path });
    } catch (e) {
      setError(message(e));
    } finally {
      setBusy(null);
    }
  }

  return (
    <div className="stack" data-testid="export-bar">
      <div className="row" role="group" aria-label={label}>
        <span className="sub">{label}:</span>
        {FORMATS.map((f) => (
          <button key={f.id} className="btn" disabled={busy !== null} onClick={() => run(f.id)} data-testid={`export-${f.id}`}>
            {busy === f.id ? `${f.label}…` : f.label}
          </button>
        ))}
        {busy && <span className="sub">choose where to save it in the dialog…</span>}
      </div>
      {outcome && "saved" in outcome && (
        <div className="notice ok" role="status" data-testid="export-result" data-path={outcome.saved}>
          Saved to <code>{outcome.saved}</code>
        </div>
      )}
      {outcome && "cancelled" in outcome && (
        <div className="notice" role="status" data-testid="export-cancelled">
          Export cancelled: nothing was written.
        </div>
      )}
      <ErrorNote error={error} />
    </div>
  );
}
