// "Load clients" on the Environments screen (the profile's [[clients]]: add, edit,
// remove, Test SSH) and on the Plan screen (who takes part; the thread split comes from
// Rust's preview and is only shown).
import "../test/mocks";
import { describe, expect, it, vi, beforeEach } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { ok } from "../test/mocks";
import { envDetail, envEntry, form, preview, randTypes } from "../test/fixtures";
import { mount } from "../test/mount";
import type { EnvironmentDetail } from "../bindings";

const commands = vi.hoisted(() => ({
  planDefaults: vi.fn(),
  planPreview: vi.fn(),
  startRun: vi.fn(),
  listEnvironments: vi.fn(),
  getEnvironment: vi.fn(),
  saveEnvironment: vi.fn(),
  testClientSsh: vi.fn(),
  setClientSecret: vi.fn(),
}));
vi.mock("../bindings", () => ({ commands }));

import { Plan } from "./Plan";
import { Environments } from "./Environments";

const C1 = "ssh://bench@c1:22";
const C2 = "ssh://bench@c2:22";

const withClient = (name: string): EnvironmentDetail => {
  const d = envDetail(name);
  d.form.load_clients = [{ url: C1, login: null, key_path: null, host_key_fingerprint: null }];
  return d;
};

describe("Environments: load clients", () => {
  beforeEach(() => {
    vi.clearAllMocks();
    commands.listEnvironments.mockImplementation(() => ok([envEntry("sandbox")]));
    commands.getEnvironment.mockImplementation((name: string) => ok(withClient(name)));
    commands.saveEnvironment.mockImplementation(() => ok(envEntry("sandbox")));
  });

  it("adds, edits and removes clients and saves them with the environment", async () => {
    const user = userEvent.setup();
    mount(<Environments />);
    expect(await screen.findByTestId("load-client-url-0")).toHaveValue(C1);
    await user.click(screen.getByTestId("load-client-add"));
    const url = screen.getByTestId("load-client-url-1");
    await user.clear(url);
    await user.type(url, C2);
    await user.selectOptions(screen.getByTestId("load-client-login-1"), "key");
    await user.type(screen.getByLabelText("Private key file", { selector: "[data-testid='load-client-1'] input" }), "~/.ssh/id");
    await user.click(screen.getByTestId("load-client-remove-0"));
    await user.click(screen.getByTestId("save-env"));
    await waitFor(() => expect(commands.saveEnvironment).toHaveBeenCalled());
    expect(commands.saveEnvironment.mock.calls[0][0].load_clients).toEqual([
      { url: C2, login: "key", key_path: "~/.ssh/id", host_key_fingerprint: null },
    ]);
  });

  it("tests a saved client's SSH login and keeps its key once compared", async () => {
    const user = userEvent.setup();
    commands.testClientSsh.mockImplementation(() =>
      ok({ ok: false, message: "c1:22 is not known yet", fingerprint: "SHA256:abc", host_key_unknown: true }),
    );
    mount(<Environments />);
    await user.click(await screen.findByTestId("load-client-test-0"));
    expect(commands.testClientSsh).toHaveBeenCalledWith("sandbox", C1);
    const result = await screen.findByTestId("load-client-result-0");
    expect(within(result).getByText("SHA256:abc")).toBeInTheDocument();
    await user.click(screen.getByTestId("load-client-keep-key-0"));
    expect(screen.getByTestId("load-client-fingerprint-0")).toHaveValue("SHA256:abc");
  });
});

describe("Environments: a load client's own secret", () => {
  beforeEach(() => {
    vi.clearAllMocks();
    commands.listEnvironments.mockImplementation(() => ok([envEntry("sandbox")]));
    commands.setClientSecret.mockImplementation(() => ok(null));
  });

  it("stores it in the keyring through Rust and shows it stored after", async () => {
    const user = userEvent.setup();
    let stored = false;
    commands.getEnvironment.mockImplementation((name: string) => {
      const d = withClient(name);
      d.form.load_clients[0].login = "password";
      d.client_secrets = [{ url: C1, has_ssh_password: stored, has_ssh_passphrase: false }];
      return ok(d);
    });
    commands.setClientSecret.mockImplementation(() => {
      stored = true;
      return ok(null);
    });
    mount(<Environments />);
    expect(await screen.findByText(/SSH password — not stored: the environment's is used/)).toBeInTheDocument();
    await user.type(screen.getByTestId("load-client-secret-0"), "pw");
    await user.click(screen.getByTestId("load-client-store-0"));
    expect(commands.setClientSecret).toHaveBeenCalledWith("sandbox", C1, "ssh_password", "pw");
    expect(await screen.findByText(/SSH password — stored ✓/)).toBeInTheDocument();
  });
});

describe("Plan: load clients", () => {
  beforeEach(() => {
    vi.clearAllMocks();
    commands.planDefaults.mockImplementation(() =>
      ok({ form: { ...form, clients: ["local", C1] }, scenarios_available: ["oltp_point_select"], rand_types: randTypes, clients_available: ["local", C1, C2] }),
    );
    commands.planPreview.mockImplementation(() =>
      ok({ ...preview, client_split: { clients: ["local", C1], steps: [{ threads: 8, per_client: [4, 4] }, { threads: 1, per_client: [1, 0] }] } }),
    );
  });

  it("sends who takes part, in the environment's order, and shows Rust's split", async () => {
    const user = userEvent.setup();
    mount(<Plan />);
    const split = await screen.findByTestId("client-split");
    expect(within(split).getAllByRole("row").map((r) => r.textContent)).toEqual([`Threadslocal${C1}`, "844", "110"]);
    expect(screen.getByTestId(`client-${C2}`)).not.toBeChecked();
    await user.click(screen.getByTestId(`client-${C2}`));
    await waitFor(() => expect(commands.planPreview.mock.calls.at(-1)?.[1].clients).toEqual(["local", C1, C2]));
    await user.click(screen.getByTestId("client-local"));
    await waitFor(() => expect(commands.planPreview.mock.calls.at(-1)?.[1].clients).toEqual([C1, C2]));
  });

  it("shows no section for a machine alone", async () => {
    commands.planDefaults.mockImplementation(() => ok({ form, scenarios_available: ["oltp_point_select"], rand_types: randTypes, clients_available: ["local"] }));
    commands.planPreview.mockImplementation(() => ok(preview));
    mount(<Plan />);
    await screen.findByTestId("plan-preview");
    expect(screen.queryByTestId("plan-clients")).toBeNull();
    expect(screen.queryByTestId("client-split")).toBeNull();
  });
});
