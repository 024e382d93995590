// "Measure the server" on the Checks screen: the database host's disk, CPU and memory
// measured over SSH. Rust proposes the directory (shown for the user to confirm or
// change), words every progress line and computes every figure; this only renders.
import { useState } from "react";
import { Channel } from "@tauri-apps/api/core";
import { commands, type MeasureProgress, type MeasureProposal, type MeasureResult } from "../bindings";
import { call, message } from "../api";
import { ErrorNote } from "./bits";

export function MeasureServer({ env }: { env: string | null }) {
  const [proposal, setProposal] = useState<MeasureProposal | null>(null);
  const [dir, setDir] = useState("");
  const [size, setSize] = useState("");
  const [lines, setLines] = useState<string[]>([]);
  const [result, setResult] = useState<MeasureResult | null>(null);
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function propose() {
    if (!env) return;
    setError(null);
    setResult(null);
    try {
      const p = await call(commands.proposeMeasurement(env));
      setProposal(p);
      setDir(p.dir ?? "");
      setSize(p.settings.file_total_size);
    } catch (e) {
      setError(message(e));
    }
  }

  async function measure() {
    if (!env || !proposal) return;
    setRunning(true);
    setError(null);
    setLines([]);
    const channel = new Channel<MeasureProgress>();
    channel.onmessage = (p) => setLines((l) => [...l.slice(-200), p.text]);
    try {
      const settings = { ...proposal.settings, file_total_size: size };
      setResult(await call(commands.measureServer(env, dir, settings, channel)));
    } catch (e) {
      setError(message(e));
    } finally {
      setRunning(false);
    }
  }

  return (
    <section className="panel" aria-label="Measure the server" data-testid="measure-server">
      <h3>Measure the server</h3>
      <div className="sub">
        Disk, CPU and memory of the database host, measured over SSH by DB Dyno's fileio, cpu and memory tests. Every file is
        removed afterwards.
      </div>
      {!proposal && (
        <div className="row" style={{ marginTop: 6 }}>
          <button className="btn" onClick={propose} disabled={!env} data-testid="measure-propose">
            Choose where the test files go…
          </button>
        </div>
      )}
      {proposal && (
        <>
          <div data-testid="measure-why">
            {proposal.host}: {proposal.why}
          </div>
          {proposal.busy_warning && (
            <div className="notice warn" role="status" data-testid="measure-busy">
              {proposal.busy_warning}
            </div>
          )}
          <div className="fields">
            <label className="field">
              <span>Directory for the test files (confirm or change)</span>
              <input type="text" value={dir} onChange={(e) => setDir(e.target.value)} data-testid="measure-dir" />
            </label>
            <label className="field">
              <span>File set size</span>
              <input type="text" value={size} onChange={(e) => setSize(e.target.value)} data-testid="measure-size" />
            </label>
          </div>
          <div className="row">
            <button className="btn primary" onClick={measure} disabled={running || !dir.trim()} data-testid="measure-start">
              {running ? "Measuring…" : `Measure in ${dir || "…"}`}
            </button>
            {running && (
              <button className="btn" onClick={() => void commands.cancelMeasurement()} data-testid="measure-cancel">
                Cancel
              </button>
            )}
          </div>
        </>
      )}
      <ErrorNote error={error} />
      {lines.length > 0 && (
        <pre className="notice" data-testid="measure-progress">
          {lines.slice(-8).join("\n")}
        </pre>
      )}
      {result && (
        <table data-testid="measure-result">
          <tbody>
            {result.figures.map((f) => (
              <tr key={f.label}>
                <th>{f.label}</th>
                <td>{f.value}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
