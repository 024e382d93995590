import "../test/mocks";
import { describe, expect, it, vi, beforeEach } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { fail, ok } from "../test/mocks";
import { envDetail, envEntry, form, preview, randTypes, snapshot, step } from "../test/fixtures";
import { AppProvider, useApp } from "../state/app";
import { useEffect } from "react";

const commands = vi.hoisted(() => ({
  planDefaults: vi.fn(),
  planPreview: vi.fn(),
  startRun: vi.fn(),
  cancelRun: vi.fn(),
  runChecks: vi.fn(),
  applyFix: vi.fn(),
  listEnvironments: vi.fn(),
  getEnvironment: vi.fn(),
  duplicateEnvironment: vi.fn(),
  importSeedConfig: vi.fn(),
}));
vi.mock("../bindings", () => ({ commands }));

import { Plan } from "./Plan";
import { Run } from "./Run";
import { Checks } from "./Checks";
import { Environments } from "./Environments";

/** Renders `children` inside the app state, with environment `env` chosen and an
 *  optional run snapshot already received. */
function WithState({ children, snap }: { children: React.ReactNode; snap?: ReturnType<typeof snapshot> }) {
  const { setEnv, dispatchRun } = useApp();
  useEffect(() => {
    setEnv("sandbox");
    if (snap) {
      dispatchRun({ type: "started", token: 9 });
      dispatchRun({ type: "snapshot", token: 9, snapshot: snap });
    }
  }, [setEnv, dispatchRun, snap]);
  return <>{children}</>;
}

const mount = (ui: React.ReactNode, snap?: ReturnType<typeof snapshot>) =>
  render(
    <AppProvider>
      <WithState snap={snap}>{ui}</WithState>
    </AppProvider>,
  );

beforeEach(() => {
  vi.clearAllMocks();
  commands.planDefaults.mockImplementation(() => ok({ form, scenarios_available: ["oltp_point_select", "oltp_read_only"], rand_types: randTypes }));
  commands.planPreview.mockImplementation(() => ok(preview));
});

describe("Plan", () => {
  it("shows the profile's ladder and the preview computed by Rust", async () => {
    mount(<Plan />);
    expect(await screen.findByRole("button", { name: "Remove 128 threads" })).toBeInTheDocument();
    expect(await screen.findByTestId("plan-total")).toHaveTextContent("3m 00s +");
    expect(screen.getByTestId("dataset-size")).toHaveTextContent("2.2 MiB");
    expect(screen.getByText(/CPU-bound/)).toBeInTheDocument();
  });

  it("edits the ladder and sends the edited form for a new preview", async () => {
    const user = userEvent.setup();
    mount(<Plan />);
    await user.click(await screen.findByRole("button", { name: "Remove 64 threads" }));
    await user.type(screen.getByTestId("thread-input"), "256{Enter}");
    await waitFor(() => {
      const last = commands.planPreview.mock.calls.at(-1);
      expect(last?.[1].threads).toEqual([1, 8, 16, 32, 128, 256]);
    });
  });

  it("sends the repeats of each step with the form", async () => {
    const user = userEvent.setup();
    mount(<Plan />);
    const repeat = await screen.findByTestId("repeat");
    expect(repeat).toHaveValue(1);
    await user.clear(repeat);
    await user.type(repeat, "3");
    await waitFor(() => {
      const last = commands.planPreview.mock.calls.at(-1);
      expect(last?.[1].repeat).toBe(3);
    });
  });

  it("asks for warehouses instead of rows when Rust says the scenarios read TPC-C's tables", async () => {
    const user = userEvent.setup();
    mount(<Plan />);
    await screen.findByTestId("plan-preview");
    expect(screen.getByTestId("table-size")).toBeInTheDocument();
    expect(screen.queryByTestId("tpcc-warehouses")).toBeNull();
    commands.planPreview.mockImplementation(() =>
      ok({ ...preview, dataset_fields: { tables_and_rows: false, warehouses: true }, dataset: { ...preview.dataset, human: "94.1 MiB" } }),
    );
    await user.click(screen.getByTestId("repeat"));
    await user.type(screen.getByTestId("repeat"), "2");
    const warehouses = await screen.findByTestId("tpcc-warehouses");
    expect(screen.queryByTestId("table-size")).toBeNull();
    expect(screen.getByText("Sets of tables")).toBeInTheDocument();
    expect(screen.getByTestId("dataset-size")).toHaveTextContent("94.1 MiB");
    await user.clear(warehouses);
    await user.type(warehouses, "4");
    await user.selectOptions(screen.getByTestId("tpcc-trx-level"), "read_committed");
    await user.click(screen.getByTestId("tpcc-use-fk"));
    await waitFor(() => {
      const sent = commands.planPreview.mock.calls.at(-1)?.[1].workload.tpcc;
      expect(sent).toMatchObject({ warehouses: 4, trx_level: "read_committed", use_fk: false });
    });
  });

  it("every control has a label", async () => {
    mount(<Plan />);
    await screen.findByTestId("plan-preview");
    for (const input of screen.getAllByRole("spinbutton")) {
      expect(input).toHaveAccessibleName();
    }
    for (const box of screen.getAllByRole("checkbox")) {
      expect(box).toHaveAccessibleName();
    }
  });
});

describe("Run", () => {
  it("shows progress, the step table and cancel while running", async () => {
    const user = userEvent.setup();
    commands.cancelRun.mockImplementation(() => ok(true));
    const snap = snapshot({
      steps: [step(0, { status: "done", tps: 812.5, p95_ms: 1.25 }), step(1, { status: "running" }), step(2)],
      current_step: 1,
      progress_pct: 40,
      errors_total: 3,
    });
    mount(<Run />, snap);
    expect(await screen.findByRole("progressbar")).toHaveAttribute("aria-valuenow", "40");
    const rows = within(screen.getByTestId("step-table")).getAllByRole("row");
    expect(rows[1]).toHaveTextContent("812.5");
    expect(rows[1]).toHaveAttribute("data-status", "done");
    await user.click(screen.getByTestId("cancel-run"));
    expect(commands.cancelRun).toHaveBeenCalledOnce();
  });

  it("shows a large step's connections opening, so a slow ramp is not taken for a hang", async () => {
    const snap = snapshot({
      connecting: { opened: 512, threads: 1024, retries: 3, elapsed_s: 1.5 },
    });
    mount(<Run />, snap);
    const note = await screen.findByTestId("run-connecting");
    expect(note).toHaveTextContent("opening connections 512 / 1,024");
    expect(note).toHaveTextContent("3 retried");
  });

  it("says while the server answers no connection, in the words Rust sent", async () => {
    const text = "server silent since 02:10:03.412 UTC: no answer for 5 s (the step fails after 30 s of silence, --stall-timeout)";
    mount(<Run />, snapshot({ silence: { since_unix_ms: 1.7e12, silent_s: 5, stall_timeout_s: 30, text } }));
    expect(await screen.findByTestId("run-silence")).toHaveTextContent(text);
  });

  it("keeps finished steps and hides Cancel once the run was cancelled", async () => {
    const snap = snapshot({
      status: "cancelled",
      eta_s: null,
      steps: [step(0, { status: "done", tps: 10 }), step(1, { status: "cancelled", tps: 5 }), step(2, { status: "skipped" })],
    });
    mount(<Run />, snap);
    await screen.findByTestId("step-table");
    expect(screen.queryByTestId("cancel-run")).toBeNull();
    const statuses = within(screen.getByTestId("step-table"))
      .getAllByRole("row")
      .slice(1)
      .map((r) => r.getAttribute("data-status"));
    expect(statuses).toEqual(["done", "cancelled", "skipped"]);
  });

  it("shows a tpcc step's tpmC and NOPM as Rust sent them, and no tpmC column without tpcc", async () => {
    const snap = snapshot({
      steps: [
        step(0, { scenario: "tpcc", status: "done", tps: 40.5, tpmc: 1092.6, nopm: 1081.2 }),
        step(1, { scenario: "tpcc", status: "running" }),
      ],
    });
    const { unmount } = mount(<Run />, snap);
    const table = await screen.findByTestId("step-table");
    expect(within(table).getByRole("columnheader", { name: "tpmC" })).toBeInTheDocument();
    const cells = within(table).getAllByTestId("step-tpmc");
    expect(cells[0]).toHaveTextContent("1,093 NOPM 1,081");
    expect(cells[0]).toHaveAttribute("data-value", "1092.6");
    expect(cells[1]).toHaveTextContent("—");
    unmount();
    mount(<Run />, snapshot({ steps: [step(0, { status: "done", tps: 10 })] }));
    const plain = await screen.findByTestId("step-table");
    expect(within(plain).queryByRole("columnheader", { name: "tpmC" })).toBeNull();
    expect(within(plain).queryByTestId("step-tpmc")).toBeNull();
  });

  it("shows a failed step as failed with its reason, and the end banner says how many failed", async () => {
    const reason = "512 of 1,024 connections opened: Too many connections";
    const snap = snapshot({
      status: "partial",
      eta_s: null,
      steps: [step(0, { status: "done", tps: 10 }), step(1, { status: "failed", failure: reason }), step(2, { status: "done", tps: 12 })],
      failed_steps_note: "1 step failed and was not measured; the others ran",
    });
    mount(<Run />, snap);
    const rows = within(await screen.findByTestId("step-table")).getAllByRole("row");
    expect(rows[2]).toHaveAttribute("data-status", "failed");
    expect(within(rows[2]).getByTestId("step-failure")).toHaveTextContent(reason);
    expect(within(rows[1]).queryByTestId("step-failure")).toBeNull();
    expect(screen.getByTestId("run-failed-steps")).toHaveTextContent("1 step failed");
    expect(screen.queryByTestId("cancel-run")).toBeNull();
  });
});

describe("Run: a run the history did not take", () => {
  it("ends with Rust's NOT IN THE HISTORY line and the spill file", async () => {
    const line =
      "NOT IN THE HISTORY: this run is not in the history: database or disk is full; its 2 steps are in the spill file /data/spill/run-1.json; to bring them in: dbdyno import results /data/spill/run-1.json";
    mount(<Run />, snapshot({ status: "complete", not_in_history: line, spill_file: "/data/spill/run-1.json" }));
    expect(await screen.findByTestId("run-not-in-history")).toHaveTextContent(line);
    expect(screen.getByTestId("run-spill-file")).toHaveTextContent("/data/spill/run-1.json");
  });

  it("says nothing of the kind for a run the history took", async () => {
    mount(<Run />, snapshot({ status: "complete" }));
    await screen.findByTestId("step-table");
    expect(screen.queryByTestId("run-not-in-history")).toBeNull();
  });
});

describe("Checks", () => {
  const view = (verdict: "warn" | "pass") => ({
    checks: [
      {
        id: "mysql.max_prepared_stmt_count",
        title: "Prepared statement limit",
        verdict,
        seen: "max_prepared_stmt_count = 16382",
        why: "statements fail when the limit is reached",
        fix_text: "raise it",
        fix_command: "SET GLOBAL max_prepared_stmt_count = 40000",
        action_sql: verdict === "warn" ? "SET GLOBAL max_prepared_stmt_count = 40000" : null,
        prepare_fix: null,
      },
    ],
    worst: verdict,
    server: "10.11.6-MariaDB",
    os_access: "this machine (/proc)",
    data_disks: [],
    missing: [],
    start_refusal: null,
  });

  it("applies a fix by check id and shows the checks again", async () => {
    const user = userEvent.setup();
    commands.runChecks.mockImplementation(() => ok(view("warn")));
    commands.applyFix.mockImplementation(() =>
      ok({ applied_sql: "SET GLOBAL max_prepared_stmt_count = 40000", note: "lost at restart", checks: view("pass") }),
    );
    mount(<Checks />);
    await user.click(await screen.findByTestId("run-checks"));
    const row = await screen.findByTestId("check-mysql.max_prepared_stmt_count");
    expect(row).toHaveAttribute("data-verdict", "warn");
    await user.type(screen.getByTestId("admin-user"), "admin");
    await user.click(within(row).getByRole("button"));
    expect(commands.applyFix).toHaveBeenCalledWith("sandbox", "mysql.max_prepared_stmt_count", form, { user: "admin", password: "" });
    expect(await screen.findByTestId("fix-applied")).toHaveTextContent("lost at restart");
    expect(screen.getByTestId("check-mysql.max_prepared_stmt_count")).toHaveAttribute("data-verdict", "pass");
  });
});

describe("Checks: refusals and their fixes", () => {
  const REFUSAL = "the prerequisite checks failed, nothing was run: Benchmark tables [dataset.tables]: sbtest1 was made by DB Dyno with table_size 5000 (the plan's: 10000).";
  const tables = (verdict: "fail" | "pass") => ({
    id: "dataset.tables",
    title: "Benchmark tables",
    verdict,
    seen: verdict === "fail" ? "sbtest1 was made by DB Dyno with table_size 5000 (the plan's: 10000)" : "prepare = \"always\": drops and loads again",
    why: "steps read rows that prepare loaded",
    fix_text: verdict === "fail" ? "drop DB Dyno's tables and prepare again" : null,
    fix_command: verdict === "fail" ? "dbdyno oltp_point_select --tables=1 cleanup" : null,
    action_sql: null,
    prepare_fix: verdict === "fail" ? ("always" as const) : null,
  });
  const pass = { id: "mysql.version", title: "Server version", verdict: "pass" as const, seen: "10.11", why: "", fix_text: null, fix_command: null, action_sql: null, prepare_fix: null };
  const view = (verdict: "fail" | "pass") => ({
    checks: [pass, tables(verdict)],
    worst: verdict,
    server: "10.11.6-MariaDB",
    os_access: "this machine (/proc)",
    data_disks: [],
    missing: [],
    start_refusal: verdict === "fail" ? REFUSAL : null,
  });

  it("names the failing check in the verdict, jumps to it, and fixes the plan by a click", async () => {
    const user = userEvent.setup();
    commands.runChecks.mockImplementationOnce(() => ok(view("fail"))).mockImplementationOnce(() => ok(view("pass")));
    mount(<Checks />);
    await user.click(await screen.findByTestId("run-checks"));
    const verdict = await screen.findByTestId("checks-worst");
    expect(verdict).toHaveTextContent("1 failed");
    expect(verdict).toHaveTextContent("1 passed");
    const flagged = screen.getByTestId("checks-flagged");
    expect(flagged).toHaveTextContent("Benchmark tables");
    expect(flagged).not.toHaveTextContent("Server version");
    await user.click(screen.getByTestId("jump-dataset.tables"));
    expect(screen.getByTestId("check-dataset.tables")).toHaveFocus();
    // The command line is there for those who want it, behind a disclosure.
    expect(within(screen.getByTestId("check-dataset.tables")).getByText("Command line")).toBeInTheDocument();
    await user.click(screen.getByTestId("plan-fix-dataset.tables"));
    await waitFor(() => expect(commands.runChecks).toHaveBeenCalledTimes(2));
    expect(commands.runChecks.mock.calls[1][1]).toEqual({ ...form, prepare: "always" });
    expect(await screen.findByTestId("fix-applied")).toHaveTextContent('prepare = "always"');
    expect(screen.getByTestId("check-dataset.tables")).toHaveAttribute("data-verdict", "pass");
    expect(screen.queryByTestId("checks-flagged")).toBeNull();
  });

  it("Start run is off with Rust's reason while the checks of this plan refuse it, and on after the fix", async () => {
    const user = userEvent.setup();
    commands.runChecks.mockImplementationOnce(() => ok(view("fail"))).mockImplementationOnce(() => ok(view("pass")));
    mount(
      <>
        <Checks />
        <Plan />
      </>,
    );
    await screen.findByRole("button", { name: "Remove 128 threads" });
    await waitFor(() => expect(screen.getByTestId("start-run")).toBeEnabled());
    await user.click(await screen.findByTestId("run-checks"));
    await waitFor(() => expect(screen.getByTestId("start-run")).toBeDisabled());
    expect(screen.getByTestId("start-refusal")).toHaveTextContent(REFUSAL);
    await user.click(screen.getByTestId("plan-fix-dataset.tables"));
    await waitFor(() => expect(screen.getByTestId("start-run")).toBeEnabled());
    expect(screen.queryByTestId("start-refusal")).toBeNull();
  });

  it("a refused start shows the failed check's fix as a button, then Start run is one click away", async () => {
    const user = userEvent.setup();
    commands.runChecks.mockImplementationOnce(() => ok(view("fail"))).mockImplementationOnce(() => ok(view("pass")));
    commands.startRun.mockImplementationOnce(() => fail("invalid", REFUSAL)).mockImplementationOnce(() => new Promise(() => {}));
    mount(
      <>
        <Plan />
        <Run />
      </>,
    );
    await waitFor(() => expect(screen.getByTestId("start-run")).toBeEnabled());
    await user.click(screen.getByTestId("start-run"));
    expect(await screen.findByTestId("run-refused")).toHaveTextContent(REFUSAL);
    // The Run screen runs the checks of this plan to find the fixes.
    const fixes = await screen.findByTestId("refused-fixes");
    expect(screen.getByText("not started")).toBeInTheDocument();
    expect(screen.getByTestId("run-refused")).toHaveTextContent("The run did not start: 1 check of this plan fails.");
    expect(commands.runChecks).toHaveBeenCalledTimes(1);
    for (const b of screen.getAllByTestId("start-run")) expect(b).toBeDisabled();
    await user.click(within(fixes).getByTestId("plan-fix-dataset.tables"));
    expect(await screen.findByTestId("refused-cleared")).toBeInTheDocument();
    // Nothing ran: the badge never said "failed", and says the plan is ready now.
    expect(screen.getByText("ready to start")).toBeInTheDocument();
    expect(screen.queryByText("failed")).toBeNull();
    expect(commands.runChecks.mock.calls[1][1]).toEqual({ ...form, prepare: "always" });
    const starts = screen.getAllByTestId("start-run");
    for (const b of starts) expect(b).toBeEnabled();
    await user.click(starts[starts.length - 1]);
    await waitFor(() => expect(commands.startRun).toHaveBeenCalledTimes(2));
    expect(commands.startRun.mock.calls[1][1]).toEqual({ ...form, prepare: "always" });
  });
});

describe("Environments", () => {
  beforeEach(() => {
    commands.listEnvironments.mockImplementation(() => ok([envEntry("sandbox")]));
    commands.getEnvironment.mockImplementation((name: string) => ok(envDetail(name)));
  });

  it("duplicates with a name typed inline: Enter confirms and the copy opens", async () => {
    const user = userEvent.setup();
    const prompt = vi.spyOn(window, "prompt");
    commands.duplicateEnvironment.mockImplementation((_: string, name: string) => ok(envEntry(name)));
    mount(<Environments />);
    await user.click(await screen.findByTestId("env-duplicate"));
    const input = screen.getByTestId("env-duplicate-name");
    expect(input).toHaveValue("sandbox-copy");
    expect(input).toHaveFocus();
    expect(input).toHaveAccessibleName("Name of the copy of sandbox");
    await user.clear(input);
    await user.type(input, "staging{Enter}");
    expect(commands.duplicateEnvironment).toHaveBeenCalledWith("sandbox", "staging");
    await waitFor(() => expect(commands.getEnvironment).toHaveBeenLastCalledWith("staging"));
    await waitFor(() => expect(screen.queryByTestId("env-duplicate-name")).toBeNull());
    expect(prompt).not.toHaveBeenCalled();
  });

  it("shows Rust's refusal by the input, and Escape cancels", async () => {
    const user = userEvent.setup();
    commands.duplicateEnvironment.mockImplementation(() => fail("invalid", "name: an environment named 'sandbox-copy' exists already"));
    mount(<Environments />);
    await user.click(await screen.findByTestId("env-duplicate"));
    await user.click(screen.getByTestId("env-duplicate-confirm"));
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("exists already");
    const input = screen.getByTestId("env-duplicate-name");
    expect(input).toHaveAttribute("aria-invalid", "true");
    expect(input).toHaveAccessibleDescription("name: an environment named 'sandbox-copy' exists already");
    await user.type(input, "{Escape}");
    expect(screen.queryByTestId("env-duplicate-name")).toBeNull();
    expect(screen.getByTestId("env-duplicate")).toHaveFocus();
    expect(commands.duplicateEnvironment).toHaveBeenCalledOnce();
  });

  it("imports under the name typed inline; Rust opens the file dialog", async () => {
    const user = userEvent.setup();
    commands.importSeedConfig.mockImplementation((name: string) => ok(envEntry(name)));
    mount(<Environments />);
    const input = await screen.findByTestId("env-import-name");
    expect(input).toHaveAccessibleName();
    expect(screen.getByTestId("env-import-pick")).toBeDisabled();
    await user.type(input, "idc{Enter}");
    expect(commands.importSeedConfig).toHaveBeenCalledWith("idc");
    await waitFor(() => expect(commands.getEnvironment).toHaveBeenLastCalledWith("idc"));
    expect(screen.getByTestId("env-import-name")).toHaveValue("");
  });

  it("import: a refused name is shown by the input, a closed dialog is not an error", async () => {
    const user = userEvent.setup();
    commands.importSeedConfig.mockImplementationOnce(() => fail("dismissed", "no file chosen"));
    commands.importSeedConfig.mockImplementationOnce(() => fail("invalid", "name: ' ' is not allowed"));
    mount(<Environments />);
    const input = await screen.findByTestId("env-import-name");
    await user.type(input, "idc 2");
    await user.click(screen.getByTestId("env-import-pick"));
    await waitFor(() => expect(commands.importSeedConfig).toHaveBeenCalledOnce());
    expect(screen.queryByRole("alert")).toBeNull();
    await user.click(screen.getByTestId("env-import-pick"));
    expect(await screen.findByRole("alert")).toHaveTextContent("is not allowed");
    await user.type(input, "{Escape}");
    expect(input).toHaveValue("");
    expect(screen.queryByRole("alert")).toBeNull();
  });
});
