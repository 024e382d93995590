// The Environments screen's "Load clients": the machines besides this one that can
// drive load (the profile's [[clients]]), each an ssh:// URL with its SSH login or the
// server's. The URL is checked in Rust when the environment is saved; "Test SSH" logs
// in to a saved client as a run would and shows its host key to compare and keep.
import { useState } from "react";
import { commands, type ClientSecretsStored, type EnvironmentForm, type LoadClientForm, type SecretSlot, type SshTest } from "../bindings";
import { call, message } from "../api";
import { ErrorNote } from "./bits";

type Login = LoadClientForm["login"];

const blank: LoadClientForm = { url: "ssh://", login: null, key_path: null, host_key_fingerprint: null };

export function LoadClients({
  form,
  onChange,
  readOnly,
  stored,
  secrets,
  onSecretStored,
}: {
  form: EnvironmentForm;
  onChange: (clients: LoadClientForm[]) => void;
  readOnly: boolean;
  /** The environment is saved: its clients can be tested and given secrets. */
  stored: boolean;
  /** Which saved clients have SSH secrets of their own in the keyring. */
  secrets: ClientSecretsStored[];
  onSecretStored: () => Promise<void>;
}) {
  const clients = form.load_clients;
  const [tests, setTests] = useState<Record<string, SshTest>>({});
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const setAt = (i: number, change: Partial<LoadClientForm>) =>
    onChange(clients.map((c, j) => (j === i ? { ...c, ...change } : c)));

  async function test(url: string) {
    setBusy(url);
    setError(null);
    try {
      const r = await call(commands.testClientSsh(form.name, url));
      setTests((t) => ({ ...t, [url]: r }));
    } catch (e) {
      setError(message(e));
    } finally {
      setBusy(null);
    }
  }

  async function storeSecret(url: string, slot: SecretSlot, value: string) {
    setBusy(url);
    setError(null);
    try {
      await call(commands.setClientSecret(form.name, url, slot, value));
      await onSecretStored();
    } catch (e) {
      setError(message(e));
    } finally {
      setBusy(null);
    }
  }

  return (
    <fieldset disabled={readOnly} data-testid="load-clients">
      <legend>Load clients</legend>
      <div className="sub">
        Machines that share each step's threads with this one when one client is not enough. None: this machine
        alone. Which of them take part is chosen on the Plan screen.
      </div>
      {clients.map((c, i) => {
        const result = tests[c.url];
        return (
          <div className="stack" key={i} data-testid={`load-client-${i}`} style={{ marginTop: 8 }}>
            <div className="fields">
              <label className="field">
                <span>URL (ssh://user@host:port)</span>
                <input type="text" value={c.url} onChange={(e) => setAt(i, { url: e.target.value })} data-testid={`load-client-url-${i}`} />
              </label>
              <label className="field">
                <span>Log in with</span>
                <select
                  value={c.login ?? "server"}
                  onChange={(e) => setAt(i, { login: e.target.value === "server" ? null : (e.target.value as Login) })}
                  data-testid={`load-client-login-${i}`}
                >
                  <option value="server">as to the server</option>
                  <option value="agent">SSH agent</option>
                  <option value="key">private key file</option>
                  <option value="password">password (keyring)</option>
                </select>
              </label>
              {c.login === "key" && (
                <label className="field">
                  <span>Private key file</span>
                  <input type="text" value={c.key_path ?? ""} onChange={(e) => setAt(i, { key_path: e.target.value || null })} />
                </label>
              )}
              <label className="field">
                <span>Accepted host key (SHA256:…)</span>
                <input
                  type="text"
                  value={c.host_key_fingerprint ?? ""}
                  onChange={(e) => setAt(i, { host_key_fingerprint: e.target.value || null })}
                  data-testid={`load-client-fingerprint-${i}`}
                />
              </label>
            </div>
            <div className="row">
              <button className="btn" onClick={() => onChange(clients.filter((_, j) => j !== i))} data-testid={`load-client-remove-${i}`}>
                Remove
              </button>
              {stored && (
                <button className="btn" disabled={busy !== null} onClick={() => void test(c.url)} data-testid={`load-client-test-${i}`}>
                  {busy === c.url ? "Testing SSH…" : "Test SSH"}
                </button>
              )}
            </div>
            {stored && (c.login === "password" || c.login === "key") && (
              <ClientSecret
                index={i}
                slot={c.login === "password" ? "ssh_password" : "ssh_passphrase"}
                saved={secrets.find((s) => s.url === c.url)}
                disabled={busy !== null}
                onStore={(slot, value) => storeSecret(c.url, slot, value)}
              />
            )}
            {result && (
              <div className={`notice ${result.ok ? "ok" : result.host_key_unknown ? "warn" : "error"}`} role="status" data-testid={`load-client-result-${i}`}>
                <strong>{result.ok ? "OK" : result.host_key_unknown ? "new host key" : "failed"}</strong> — {result.message}
                {result.fingerprint && <div className="fingerprint">{result.fingerprint}</div>}
                {result.host_key_unknown && result.fingerprint && (
                  <button className="btn" onClick={() => setAt(i, { host_key_fingerprint: result.fingerprint })} data-testid={`load-client-keep-key-${i}`}>
                    I compared it: keep this key (then Save)
                  </button>
                )}
              </div>
            )}
          </div>
        );
      })}
      <div className="row" style={{ marginTop: 8 }}>
        <button className="btn" onClick={() => onChange([...clients, { ...blank }])} data-testid="load-client-add">
          Add a load client
        </button>
      </div>
      <ErrorNote error={error} />
    </fieldset>
  );
}

/** A client's own SSH password or key passphrase, into the keyring; never shown back. */
function ClientSecret({
  index,
  slot,
  saved,
  disabled,
  onStore,
}: {
  index: number;
  slot: SecretSlot;
  saved: ClientSecretsStored | undefined;
  disabled: boolean;
  onStore: (slot: SecretSlot, value: string) => Promise<void>;
}) {
  const [value, setValue] = useState("");
  const has = slot === "ssh_password" ? saved?.has_ssh_password : saved?.has_ssh_passphrase;
  const label = slot === "ssh_password" ? "This client's SSH password" : "This client's key passphrase";
  return (
    <div className="row">
      <label className="field">
        <span>
          {label} — {has ? "stored ✓" : saved ? "not stored: the environment's is used" : "save the environment first"}
        </span>
        <input type="password" value={value} onChange={(e) => setValue(e.target.value)} data-testid={`load-client-secret-${index}`} />
      </label>
      <button
        className="btn"
        disabled={disabled || !saved || !value}
        style={{ alignSelf: "end" }}
        onClick={() => void onStore(slot, value).then(() => setValue(""))}
        data-testid={`load-client-store-${index}`}
      >
        Store
      </button>
    </div>
  );
}
