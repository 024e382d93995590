// History's "Import sysbench logs…": what the page sends Rust (environment and scenario,
// never a file: Rust opens the dialog), and how it shows Rust's result and refusals.
import "../test/mocks";
import { describe, expect, it, vi, beforeEach } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useEffect } from "react";
import { fail, ok } from "../test/mocks";
import { runRow } from "../test/compare-fixtures";
import { AppProvider, useApp } from "../state/app";
import type { SysbenchImportResult } from "../bindings";

const commands = vi.hoisted(() => ({
  listRuns: vi.fn(),
  importSysbenchLogs: vi.fn(),
}));
vi.mock("../bindings", () => ({ commands }));

import { History } from "./History";

function InEnv({ env, children }: { env: string | null; children: React.ReactNode }) {
  const { setEnv } = useApp();
  useEffect(() => setEnv(env), [env, setEnv]);
  return <>{children}</>;
}

const mount = (env: string | null = "sandbox") =>
  render(
    <AppProvider>
      <InEnv env={env}>
        <History />
      </InEnv>
    </AppProvider>,
  );

const result: SysbenchImportResult = {
  env: "sandbox",
  imported: [
    { file: "oltp_insert.txt", run_id: 7, state: "complete", steps: ["oltp_insert@2"] },
    { file: "killed.txt", run_id: 8, state: "interrupted", steps: ["oltp_insert@4"] },
  ],
  duplicates: [{ file: "copy.log", message: "/logs/copy.log: already imported as run 3 (from a.log, same content)" }],
  refused: [{ file: "notes.txt", message: "/logs/notes.txt: line 2: expected a time, found 'sixty'" }],
  notes: ["killed.txt: start time taken from the file's modification time minus the run time (2026-01-01T00:00:00Z)"],
};

beforeEach(() => {
  vi.clearAllMocks();
  commands.listRuns.mockImplementation(() => ok([runRow(1, "sandbox")]));
});

describe("History: import sysbench logs", () => {
  it("sends the environment in use and the scenario typed, then shows what Rust imported, skipped and refused", async () => {
    const user = userEvent.setup();
    commands.importSysbenchLogs.mockImplementation(() => ok(result));
    mount();
    const open = await screen.findByTestId("import-logs-open");
    expect(open).toHaveAttribute("aria-expanded", "false");
    await user.click(open);
    expect(open).toHaveAttribute("aria-expanded", "true");
    const env = screen.getByTestId("import-env");
    expect(env).toHaveValue("sandbox");
    expect(env).toHaveAccessibleName("Environment");
    expect(screen.getByTestId("import-scenario")).toHaveAccessibleName();
    await user.type(screen.getByTestId("import-scenario"), " oltp_insert ");
    const listed = commands.listRuns.mock.calls.length;
    await user.click(screen.getByTestId("import-choose"));
    expect(commands.importSysbenchLogs).toHaveBeenCalledWith({ env: "sandbox", scenario: "oltp_insert" });

    expect(await screen.findByTestId("import-summary")).toHaveTextContent(
      "Imported 2 runs into sandbox, 1 duplicate skipped, 1 file refused.",
    );
    const imported = within(screen.getByTestId("import-imported")).getAllByRole("listitem");
    expect(imported[0]).toHaveTextContent("oltp_insert.txt: run #7, oltp_insert@2");
    expect(imported[1]).toHaveTextContent("(interrupted)");
    const refused = within(screen.getByTestId("import-refused")).getByRole("listitem");
    expect(refused).toHaveAttribute("data-file", "notes.txt");
    expect(refused).toHaveTextContent("line 2: expected a time");
    expect(screen.getByTestId("import-duplicates")).toHaveTextContent("already imported as run 3");
    expect(screen.getByTestId("import-notes")).toHaveTextContent("modification time");
    // The list shows the new runs.
    await waitFor(() => expect(commands.listRuns.mock.calls.length).toBeGreaterThan(listed));
  });

  it("leaves empty fields to Rust, says nothing when the dialog is closed, and shows a refusal", async () => {
    const user = userEvent.setup();
    commands.importSysbenchLogs.mockImplementationOnce(() => fail("dismissed", "no file chosen"));
    commands.importSysbenchLogs.mockImplementationOnce(() => fail("invalid", "environment: ' ' is not allowed"));
    mount(null);
    await user.click(await screen.findByTestId("import-logs-open"));
    expect(screen.getByTestId("import-env")).toHaveValue("");
    await user.click(screen.getByTestId("import-choose"));
    expect(commands.importSysbenchLogs).toHaveBeenCalledWith({ env: null, scenario: null });
    await waitFor(() => expect(screen.getByTestId("import-choose")).toBeEnabled());
    expect(screen.queryByRole("alert")).toBeNull();
    expect(screen.queryByTestId("import-result")).toBeNull();

    await user.type(screen.getByTestId("import-env"), "a b");
    await user.click(screen.getByTestId("import-choose"));
    expect(await screen.findByRole("alert")).toHaveTextContent("environment: ' ' is not allowed");
    expect(commands.importSysbenchLogs).toHaveBeenLastCalledWith({ env: "a b", scenario: null });
  });
});
