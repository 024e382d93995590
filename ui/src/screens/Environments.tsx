// Environments: list, create, edit, duplicate, delete; secrets into the OS keyring;
// Test MySQL / Test SSH with results inline and the host key shown for confirmation;
// import of a seed benchmark_config.conf. Names are asked inline (NameForm), never with
// window.prompt.
import { useCallback, useEffect, useRef, useState } from "react";
import {
  commands,
  type EnvironmentDetail,
  type EnvironmentEntry,
  type EnvironmentForm,
  type MysqlTest,
  type SecretSlot,
  type SshTest,
} from "../bindings";
import { call, message } from "../api";
import { Badge, ErrorNote } from "../components/bits";
import { NameForm } from "../components/NameForm";
import { LoadClients } from "../components/LoadClients";
import { useApp } from "../state/app";

type Editing = { detail: EnvironmentDetail | null; form: EnvironmentForm; previous: string | null };

export function Environments() {
  const { env, setEnv, go } = useApp();
  const [list, setList] = useState<EnvironmentEntry[]>([]);
  const [editing, setEditing] = useState<Editing | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  // Bumped after an import: a fresh, empty import form.
  const [importKey, setImportKey] = useState(0);

  const refresh = useCallback(async () => {
    try {
      setList(await call(commands.listEnvironments()));
    } catch (e) {
      setError(message(e));
    }
  }, []);

  const open = useCallback(async (name: string) => {
    setError(null);
    setSaved(null);
    try {
      const detail = await call(commands.getEnvironment(name));
      setEditing({ detail, form: detail.form, previous: detail.example ? null : name });
    } catch (e) {
      setError(message(e));
    }
  }, []);

  useEffect(() => {
    void refresh();
  }, [refresh]);
  useEffect(() => {
    if (env && !editing) void open(env);
  }, [env, editing, open]);

  async function create() {
    setError(null);
    setSaved(null);
    const form = await commands.newEnvironmentForm();
    setEditing({ detail: null, form: { ...form, name: "" }, previous: null });
  }

  async function save() {
    if (!editing) return;
    setError(null);
    try {
      const e = await call(commands.saveEnvironment(editing.form, editing.previous));
      await refresh();
      setEnv(e.name);
      // After open, which clears the last message: said before it, "Saved" never showed.
      await open(e.name);
      setSaved(`Saved ${e.path}`);
    } catch (err) {
      setError(message(err));
    }
  }

  // Errors are thrown to the NameForm, which shows them by its input.
  async function duplicate(name: string) {
    if (!editing) return;
    const e = await call(commands.duplicateEnvironment(editing.form.name, name));
    await refresh();
    await open(e.name);
  }

  async function remove() {
    if (!editing?.previous) return;
    if (!window.confirm(`Delete the environment '${editing.previous}'? Its runs stay in the history.`)) return;
    try {
      await call(commands.deleteEnvironment(editing.previous));
      if (env === editing.previous) setEnv(null);
      setEditing(null);
      await refresh();
    } catch (err) {
      setError(message(err));
    }
  }

  // Rust checks the name, then opens the native file dialog (the page never names a file).
  async function importConfig(name: string) {
    const e = await call(commands.importSeedConfig(name));
    setImportKey((k) => k + 1);
    await refresh();
    await open(e.name);
  }

  const current = editing?.detail ? editing.form.name : null;
  return (
    <div className="stack">
      <div className="screen-head">
        <h1>Environments</h1>
        <span className="sub">Where the benchmark connects, and how to watch the server</span>
        <span className="spacer" />
        <button className="btn primary" onClick={create}>
          New environment
        </button>
      </div>
      <ErrorNote error={error} />
      <div className="split">
        <div className="stack">
          <nav className="panel env-list" aria-label="Environments">
            {list.map((e) => (
              <button
                key={`${e.example}-${e.name}`}
                className="env-item"
                aria-pressed={current === e.name}
                onClick={() => void open(e.name)}
                data-testid={`env-${e.name}`}
              >
                <span className="row">
                  <strong>{e.name}</strong>
                  {e.example && <Badge kind="example">example</Badge>}
                  {env === e.name && <Badge kind="running">in use</Badge>}
                </span>
                <span className="desc">{e.error ? `Invalid: ${e.error}` : e.description || e.path}</span>
              </button>
            ))}
          </nav>
          <section className="panel" aria-label="Import a seed config">
            <NameForm
              key={importKey}
              label="Import a benchmark_config.conf as a new environment named"
              confirmLabel="Choose the file…"
              busyLabel="Choosing…"
              inputTestId="env-import-name"
              confirmTestId="env-import-pick"
              onConfirm={importConfig}
              onCancel={() => {}}
              quietCodes={["dismissed"]}
            />
          </section>
        </div>
        {editing ? (
          <EnvironmentEditor
            key={editing.previous ?? (editing.detail ? editing.detail.form.name : "new")}
            editing={editing}
            onChange={(form) => {
              // An edit makes the last "Saved" untrue until the next save.
              setSaved(null);
              setEditing({ ...editing, form });
            }}
            onSave={save}
            onDuplicate={duplicate}
            onDelete={remove}
            onUse={() => {
              setEnv(editing.form.name);
              go("checks");
            }}
            saved={saved}
            reload={() => open(editing.form.name)}
          />
        ) : (
          <div className="panel sub">Choose an environment, or create one.</div>
        )}
      </div>
    </div>
  );
}

function Text({ label, value, onChange, disabled, type = "text", id, placeholder }: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  disabled?: boolean;
  type?: string;
  id?: string;
  placeholder?: string;
}) {
  return (
    <label className="field">
      <span>{label}</span>
      <input type={type} value={value} disabled={disabled} placeholder={placeholder} onChange={(e) => onChange(e.target.value)} data-testid={id} />
    </label>
  );
}

function EnvironmentEditor({ editing, onChange, onSave, onDuplicate, onDelete, onUse, saved, reload }: {
  editing: Editing;
  onChange: (f: EnvironmentForm) => void;
  onSave: () => void;
  onDuplicate: (name: string) => Promise<void>;
  onDelete: () => void;
  onUse: () => void;
  saved: string | null;
  reload: () => Promise<void>;
}) {
  const f = editing.form;
  const d = editing.detail;
  const readOnly = d?.example ?? false;
  const stored = d !== null && !d.example;
  const set = <K extends keyof EnvironmentForm>(k: K, v: EnvironmentForm[K]) => onChange({ ...f, [k]: v });
  const [mysqlTest, setMysqlTest] = useState<MysqlTest | null>(null);
  const [sshTest, setSshTest] = useState<SshTest | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [duplicating, setDuplicating] = useState(false);
  const duplicateButton = useRef<HTMLButtonElement>(null);

  async function run<T>(what: string, p: () => Promise<T>): Promise<T | undefined> {
    setBusy(what);
    setError(null);
    try {
      return await p();
    } catch (e) {
      setError(message(e));
    } finally {
      setBusy(null);
    }
  }

  return (
    <section className="panel stack" aria-label={`Environment ${f.name || "(new)"}`}>
      <div className="row">
        <h2>{d ? f.name : "New environment"}</h2>
        {readOnly && <span className="sub">A shipped example: duplicate it to change it.</span>}
        <span className="spacer" style={{ flex: 1 }} />
        {d && <button className="btn primary" onClick={onUse} data-testid="use-env">Use for checks and runs</button>}
      </div>
      <div className="fields">
        <Text label="Name" value={f.name} onChange={(v) => set("name", v)} disabled={readOnly} id="env-name" />
        <Text label="Description" value={f.description} onChange={(v) => set("description", v)} disabled={readOnly} />
        <Text
          label="Labels (comma separated)"
          value={f.labels.join(", ")}
          onChange={(v) => set("labels", v.split(","))}
          disabled={readOnly}
        />
      </div>
      <fieldset disabled={readOnly}>
        <legend>MySQL / MariaDB</legend>
        <div className="fields">
          <Text label="Host" value={f.mysql_host} onChange={(v) => set("mysql_host", v)} id="mysql-host" />
          <Text label="Port" type="number" value={String(f.mysql_port)} onChange={(v) => set("mysql_port", Number(v) || 0)} id="mysql-port" />
          <Text label="Unix socket (optional)" value={f.mysql_socket ?? ""} onChange={(v) => set("mysql_socket", v || null)} />
          <Text label="User" value={f.mysql_user} onChange={(v) => set("mysql_user", v)} id="mysql-user" />
          <Text label="Database" value={f.mysql_db} onChange={(v) => set("mysql_db", v)} id="mysql-db" />
          <label className="field">
            <span>TLS</span>
            <select
              value={f.mysql_ssl_mode}
              onChange={(e) => set("mysql_ssl_mode", e.target.value as EnvironmentForm["mysql_ssl_mode"])}
              data-testid="mysql-ssl-mode"
            >
              <option value="disabled">disabled</option>
              <option value="required">required: encrypt, accept any certificate</option>
              <option value="verify_ca">verify_ca: check the certificate's CA</option>
              <option value="verify_identity">verify_identity: check the CA and the host name</option>
            </select>
          </label>
          {f.mysql_ssl_mode.startsWith("verify") && (
            <Text
              label="CA certificate file (PEM; empty = the system's)"
              value={f.mysql_ssl_ca ?? ""}
              onChange={(v) => set("mysql_ssl_ca", v || null)}
              id="mysql-ssl-ca"
            />
          )}
          <label className="field">
            <span>Password from</span>
            <select value={f.password_from} onChange={(e) => set("password_from", e.target.value as EnvironmentForm["password_from"])}>
              <option value="keyring">OS keyring</option>
              <option value="env">MYSQL_PWD variable</option>
              <option value="none">no password</option>
            </select>
          </label>
        </div>
      </fieldset>
      <fieldset disabled={readOnly}>
        <legend>
          <label className="check">
            <input type="checkbox" checked={f.ssh_enabled} onChange={(e) => set("ssh_enabled", e.target.checked)} data-testid="ssh-enabled" />
            SSH to the server (CPU and disk charts)
          </label>
        </legend>
        {f.ssh_enabled && (
          <div className="fields">
            <Text label="SSH host" value={f.ssh_host} onChange={(v) => set("ssh_host", v)} id="ssh-host" />
            <Text label="SSH port" type="number" value={String(f.ssh_port)} onChange={(v) => set("ssh_port", Number(v) || 0)} id="ssh-port" />
            <Text label="SSH user" value={f.ssh_user} onChange={(v) => set("ssh_user", v)} id="ssh-user" placeholder="from ~/.ssh/config, else your login" />
            <label className="field">
              <span>Log in with</span>
              <select value={f.ssh_login} onChange={(e) => set("ssh_login", e.target.value as EnvironmentForm["ssh_login"])} data-testid="ssh-login">
                <option value="agent">SSH agent</option>
                <option value="key">private key file</option>
                <option value="password">password</option>
              </select>
            </label>
            {f.ssh_login === "key" && (
              <Text label="Private key file" value={f.ssh_key_path ?? ""} onChange={(v) => set("ssh_key_path", v || null)} id="ssh-key" placeholder="IdentityFile from ~/.ssh/config" />
            )}
            <Text label="Jump hosts (ProxyJump)" value={f.ssh_jump ?? ""} onChange={(v) => set("ssh_jump", v || null)} id="ssh-jump" placeholder="[user@]bastion[:port], nearest first" />
            <label className="field">
              <span>Accepted host key</span>
              <input type="text" readOnly value={f.ssh_host_key_fingerprint ?? "none yet: Test SSH"} />
            </label>
          </div>
        )}
      </fieldset>
      <LoadClients
        form={f}
        onChange={(c) => set("load_clients", c)}
        readOnly={readOnly}
        stored={stored}
        secrets={d?.client_secrets ?? []}
        onSecretStored={reload}
      />
      <fieldset disabled={readOnly}>
        <legend>Data disk</legend>
        <div className="fields">
          <Text
            label="Device override (e.g. nvme0n1; empty = found automatically)"
            value={f.data_disk ?? ""}
            onChange={(v) => set("data_disk", v || null)}
          />
        </div>
      </fieldset>
      <div className="row">
        <button className="btn primary" onClick={onSave} disabled={readOnly || !f.name.trim()} data-testid="save-env">
          Save
        </button>
        {d && (
          <button
            ref={duplicateButton}
            className="btn"
            aria-expanded={duplicating}
            onClick={() => setDuplicating(true)}
            data-testid="env-duplicate"
          >
            Duplicate…
          </button>
        )}
        {stored && <button className="btn danger" onClick={onDelete}>Delete</button>}
        {saved && <span className="sub" role="status">{saved}</span>}
      </div>
      {d && duplicating && (
        <NameForm
          label={`Name of the copy of ${f.name}`}
          initial={`${f.name}-copy`}
          confirmLabel="Create the copy"
          busyLabel="Copying…"
          cancelLabel="Cancel"
          inputTestId="env-duplicate-name"
          confirmTestId="env-duplicate-confirm"
          autoFocus
          onConfirm={async (name) => {
            await onDuplicate(name);
            setDuplicating(false);
          }}
          onCancel={() => {
            setDuplicating(false);
            duplicateButton.current?.focus();
          }}
        />
      )}
      {stored && (
        <>
          <Secrets
            name={f.name}
            detail={d!}
            sshLogin={f.ssh_enabled ? f.ssh_login : null}
            onStored={reload}
          />
          <fieldset>
            <legend>Connection tests</legend>
            <div className="row">
              <button
                className="btn"
                disabled={busy !== null}
                data-testid="test-mysql"
                onClick={async () => setMysqlTest((await run("mysql", () => call(commands.testMysql(f.name)))) ?? null)}
              >
                {busy === "mysql" ? "Testing MySQL…" : "Test MySQL"}
              </button>
              <button
                className="btn"
                disabled={busy !== null || !f.ssh_enabled}
                data-testid="test-ssh"
                onClick={async () => setSshTest((await run("ssh", () => call(commands.testSsh(f.name)))) ?? null)}
              >
                {busy === "ssh" ? "Testing SSH…" : "Test SSH"}
              </button>
            </div>
            <div className="stack" style={{ marginTop: 10 }}>
              {mysqlTest && (
                <div className={`notice ${mysqlTest.ok ? "ok" : "error"}`} role="status" data-testid="mysql-result">
                  <strong>MySQL: {mysqlTest.ok ? "OK" : "failed"}</strong> — {mysqlTest.message}
                  {mysqlTest.server_version && <div className="sub">Server {mysqlTest.server_version}, connected in {mysqlTest.connect_ms?.toFixed(1)} ms</div>}
                </div>
              )}
              {sshTest && (
                <div className={`notice ${sshTest.ok ? "ok" : sshTest.host_key_unknown ? "warn" : "error"}`} role="status" data-testid="ssh-result">
                  <strong>SSH: {sshTest.ok ? "OK" : sshTest.host_key_unknown ? "new host key" : "failed"}</strong> — {sshTest.message}
                  {sshTest.fingerprint && <div className="fingerprint" data-testid="ssh-fingerprint">{sshTest.fingerprint}</div>}
                  {sshTest.host_key_unknown && sshTest.fingerprint && (
                    <div className="row" style={{ marginTop: 8 }}>
                      <button
                        className="btn primary"
                        data-testid="accept-host-key"
                        onClick={async () => {
                          const r = await run("ssh", () => call(commands.acceptHostKey(f.name, sshTest.fingerprint!)));
                          if (r) {
                            setSshTest(r);
                            await reload();
                          }
                        }}
                      >
                        I compared it: trust this key
                      </button>
                    </div>
                  )}
                </div>
              )}
              <ErrorNote error={error} />
            </div>
          </fieldset>
        </>
      )}
    </section>
  );
}

function Secrets({ name, detail, sshLogin, onStored }: {
  name: string;
  detail: EnvironmentDetail;
  sshLogin: EnvironmentForm["ssh_login"] | null;
  onStored: () => Promise<void>;
}) {
  const slots: { slot: SecretSlot; label: string; stored: boolean }[] = [
    { slot: "mysql", label: "MySQL password", stored: detail.has_mysql_password },
  ];
  if (sshLogin === "password") slots.push({ slot: "ssh_password", label: "SSH password", stored: detail.has_ssh_password });
  if (sshLogin === "key") slots.push({ slot: "ssh_passphrase", label: "Key passphrase", stored: detail.has_ssh_passphrase });
  return (
    <fieldset>
      <legend>Secrets (kept in the OS keyring, never in the profile)</legend>
      <div className="fields">
        {slots.map((s) => (
          <SecretField key={s.slot} name={name} {...s} onStored={onStored} />
        ))}
      </div>
    </fieldset>
  );
}

function SecretField({ name, slot, label, stored, onStored }: {
  name: string;
  slot: SecretSlot;
  label: string;
  stored: boolean;
  onStored: () => Promise<void>;
}) {
  const [value, setValue] = useState("");
  const [note, setNote] = useState<string | null>(null);
  return (
    <form
      className="field"
      onSubmit={async (e) => {
        e.preventDefault();
        try {
          await call(commands.setSecret(name, slot, value));
          setValue("");
          setNote("stored in the keyring");
          await onStored();
        } catch (err) {
          setNote(message(err));
        }
      }}
    >
      <label className="field">
        <span>
          {label} {stored ? "— stored ✓" : "— not stored"}
        </span>
        <input type="password" value={value} autoComplete="off" onChange={(e) => setValue(e.target.value)} data-testid={`secret-${slot}`} />
      </label>
      <div className="row">
        <button className="btn" type="submit" disabled={!value} data-testid={`store-${slot}`}>
          Store
        </button>
        {note && <span className="sub" role="status">{note}</span>}
      </div>
    </form>
  );
}
