// The Plan screen's workload knobs (row distribution, transaction mix, prewarm's gate)
// and TLS on the environment's form: each reaches Rust in the form it sends, and
// Rust's refusals are shown. History shows a run's stored plan as Rust words it.
import "../test/mocks";
import { describe, expect, it, vi, beforeEach } from "vitest";
import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { fail, ok } from "../test/mocks";
import { envDetail, envEntry, form, preview, randTypes } from "../test/fixtures";
import { AppProvider } from "../state/app";
import { mount } from "../test/mount";

const commands = vi.hoisted(() => ({
  planDefaults: vi.fn(),
  planPreview: vi.fn(),
  startRun: vi.fn(),
  listEnvironments: vi.fn(),
  getEnvironment: vi.fn(),
  saveEnvironment: vi.fn(),
  listRuns: vi.fn(),
  getRun: vi.fn(),
  compareRuns: vi.fn(),
}));
vi.mock("../bindings", () => ({ commands }));

import { Plan } from "./Plan";
import { Environments } from "./Environments";
import { History } from "./History";
import { runRow } from "../test/compare-fixtures";

/** The form of the last preview asked for. */
const lastForm = () => commands.planPreview.mock.calls.at(-1)?.[1];

beforeEach(() => {
  vi.clearAllMocks();
  commands.planDefaults.mockImplementation(() => ok({ form, scenarios_available: ["oltp_point_select"], rand_types: randTypes }));
  commands.planPreview.mockImplementation(() => ok(preview));
});

describe("Plan: prepare", () => {
  it("prepares if missing when ticked, offers loading again, and sends never when unticked", async () => {
    const user = userEvent.setup();
    mount(<Plan />);
    const box = await screen.findByTestId("opt-prepare");
    expect(box).toBeChecked();
    const mode = screen.getByTestId("prepare-mode");
    expect(mode).toHaveValue("if-missing");
    await user.selectOptions(mode, "always");
    await waitFor(() => expect(lastForm()?.prepare).toBe("always"));
    await user.click(box);
    await waitFor(() => expect(lastForm()?.prepare).toBe("never"));
    expect(screen.queryByTestId("prepare-mode")).toBeNull();
    await user.click(box);
    await waitFor(() => expect(lastForm()?.prepare).toBe("if-missing"));
  });
});

describe("Plan: live metrics", () => {
  it("sends the address typed, and none when the field is emptied", async () => {
    const user = userEvent.setup();
    mount(<Plan />);
    const field = await screen.findByTestId("metrics-addr");
    expect(field).toHaveValue("");
    expect(field).toHaveAccessibleName(/Serve to Prometheus/);
    await user.type(field, "127.0.0.1:9187");
    await waitFor(() => expect(lastForm()?.metrics_addr).toBe("127.0.0.1:9187"));
    await user.clear(field);
    await waitFor(() => expect(lastForm()?.metrics_addr).toBeNull());
  });
});

describe("Plan: row distribution", () => {
  it("shows the parameters of the chosen distribution only, and sends the choice", async () => {
    const user = userEvent.setup();
    mount(<Plan />);
    const select = await screen.findByTestId("rand-type");
    expect(select).toHaveValue("special");
    expect(screen.getByTestId("rand-spec-pct")).toHaveValue(1);
    expect(screen.queryByTestId("rand-zipfian-exp")).toBeNull();
    await user.selectOptions(select, "zipfian");
    expect(screen.queryByTestId("rand-spec-pct")).toBeNull();
    const exp = screen.getByTestId("rand-zipfian-exp");
    expect(exp).toHaveValue(0.8);
    await user.clear(exp);
    await user.type(exp, "0.5");
    await waitFor(() => {
      expect(lastForm()?.workload.rand_type).toBe("zipfian");
      expect(lastForm()?.workload.rand_zipfian_exp).toBe(0.5);
    });
    await user.selectOptions(select, "uniform");
    for (const id of ["rand-spec-iter", "rand-spec-pct", "rand-spec-res", "rand-pareto-h", "rand-zipfian-exp"]) {
      expect(screen.queryByTestId(id)).toBeNull();
    }
  });

  it("shows Rust's refusal of a value", async () => {
    const user = userEvent.setup();
    commands.planPreview.mockImplementation((_: string, f: typeof form) =>
      (f.workload.rand_pareto_h ?? 0) >= 1 ? fail("invalid", "workload.rand_pareto_h: --rand-pareto-h must be between 0 and 1 (got 2)") : ok(preview),
    );
    mount(<Plan />);
    await user.selectOptions(await screen.findByTestId("rand-type"), "pareto");
    const h = screen.getByTestId("rand-pareto-h");
    await user.clear(h);
    await user.type(h, "2");
    expect(await screen.findByText(/rand_pareto_h: --rand-pareto-h must be between 0 and 1/)).toBeInTheDocument();
    expect(screen.getByTestId("start-run")).toBeDisabled();
  });
});

describe("Plan: transaction mix and prewarm gate", () => {
  it("sends every count of the mix and skip_trx", async () => {
    const user = userEvent.setup();
    mount(<Plan />);
    const points = await screen.findByTestId("point-selects");
    expect(points).toHaveValue(10);
    await user.clear(points);
    await user.type(points, "5");
    const range = screen.getByTestId("range-size");
    await user.clear(range);
    await user.type(range, "50");
    await user.click(screen.getByTestId("skip-trx"));
    await waitFor(() => {
      expect(lastForm()?.workload).toMatchObject({ point_selects: 5, range_size: 50, skip_trx: true });
    });
    for (const id of ["simple-ranges", "sum-ranges", "order-ranges", "distinct-ranges", "index-updates", "non-index-updates", "delete-inserts"]) {
      expect(screen.getByTestId(id)).toHaveAccessibleName();
    }
  });

  it("offers the hit-rate gate with prewarm on, and an empty field means one pass", async () => {
    const user = userEvent.setup();
    mount(<Plan />);
    const gate = await screen.findByTestId("prewarm-until-hit-rate");
    expect(gate).toBeDisabled();
    await user.click(screen.getByTestId("opt-prewarm"));
    expect(gate).toBeEnabled();
    await user.type(gate, "99");
    await waitFor(() => expect(lastForm()).toMatchObject({ prewarm: true, prewarm_until_hit_rate: 99 }));
    await user.clear(gate);
    await waitFor(() => expect(lastForm()?.prewarm_until_hit_rate).toBeNull());
  });
});

describe("Environments: TLS", () => {
  beforeEach(() => {
    commands.listEnvironments.mockImplementation(() => ok([envEntry("sandbox")]));
    commands.getEnvironment.mockImplementation((name: string) => ok(envDetail(name)));
    commands.saveEnvironment.mockImplementation(() => ok(envEntry("sandbox")));
  });

  it("saves the TLS mode and the CA file, asked for only when verifying", async () => {
    const user = userEvent.setup();
    mount(<Environments />);
    const mode = await screen.findByTestId("mysql-ssl-mode");
    expect(mode).toHaveValue("disabled");
    expect(screen.queryByTestId("mysql-ssl-ca")).toBeNull();
    await user.selectOptions(mode, "verify_ca");
    await user.type(screen.getByTestId("mysql-ssl-ca"), "/etc/ssl/ca.pem");
    await user.click(screen.getByTestId("save-env"));
    await waitFor(() => expect(commands.saveEnvironment).toHaveBeenCalled());
    expect(commands.saveEnvironment.mock.calls[0][0]).toMatchObject({ mysql_ssl_mode: "verify_ca", mysql_ssl_ca: "/etc/ssl/ca.pem" });
  });

  it("shows Rust's refusal of a missing CA file", async () => {
    const user = userEvent.setup();
    commands.saveEnvironment.mockImplementation(() => fail("invalid", "mysql.ssl_ca: no CA certificate file at /nope.pem"));
    mount(<Environments />);
    await user.selectOptions(await screen.findByTestId("mysql-ssl-mode"), "verify_identity");
    await user.type(screen.getByTestId("mysql-ssl-ca"), "/nope.pem");
    await user.click(screen.getByTestId("save-env"));
    expect(await screen.findByText(/no CA certificate file at \/nope.pem/)).toBeInTheDocument();
  });
});

describe("History: the stored plan", () => {
  it("lists the run's plan settings, and nothing for a run without a plan", async () => {
    const user = userEvent.setup();
    const rows = [runRow(1, "idc"), runRow(2, "idc")];
    const settings = [
      { name: "Scenarios", value: "oltp_point_select" },
      { name: "rand_type", value: "zipfian" },
    ];
    commands.listRuns.mockImplementation(() => ok(rows));
    commands.compareRuns.mockImplementation(() => new Promise(() => {}));
    commands.getRun.mockImplementation((id: number) =>
      ok({ row: rows[id - 1], command_line: rows[id - 1].command, failure: null, steps: [], points: [], server: [], mysql: [], warnings: [], plan_settings: id === 1 ? settings : [] }),
    );
    render(<AppProvider><History /></AppProvider>);
    await user.click(await screen.findByTestId("run-1"));
    const plan = await screen.findByTestId("run-plan");
    expect(plan.querySelector('tr[data-setting="rand_type"] td')).toHaveTextContent("zipfian");
    await user.click(screen.getByTestId("run-2"));
    await waitFor(() => expect(screen.queryByTestId("run-plan")).toBeNull());
  });
});
