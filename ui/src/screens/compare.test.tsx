import "../test/mocks";
import { describe, expect, it, vi, beforeEach } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { ok } from "../test/mocks";
import { compareView, runRow } from "../test/compare-fixtures";
import { AppProvider } from "../state/app";

const commands = vi.hoisted(() => ({
  listRuns: vi.fn(),
  compareRuns: vi.fn(),
  exportReport: vi.fn(),
  getRun: vi.fn(),
  deleteRun: vi.fn(),
}));
vi.mock("../bindings", () => ({ commands }));

import { Compare } from "./Compare";
import { History } from "./History";

const mount = (ui: React.ReactNode) => render(<AppProvider>{ui}</AppProvider>);
const rows = [runRow(1, "idc"), runRow(2, "hw_cloud"), runRow(3, "idc")];

beforeEach(() => {
  vi.clearAllMocks();
  commands.listRuns.mockImplementation(() => ok(rows));
  commands.compareRuns.mockImplementation(() => ok(compareView()));
});

async function pickTwo(user: ReturnType<typeof userEvent.setup>) {
  await user.click(await screen.findByTestId("pick-run-1"));
  await user.click(screen.getByTestId("pick-run-2"));
}

describe("Compare", () => {
  it("asks Rust for nothing until two runs are ticked", async () => {
    const user = userEvent.setup();
    mount(<Compare />);
    await user.click(await screen.findByTestId("pick-run-1"));
    await new Promise((r) => setTimeout(r, 400));
    expect(commands.compareRuns).not.toHaveBeenCalled();
    expect(screen.getByTestId("compare-baseline")).toBeDisabled();
    expect(screen.queryByTestId("report-view")).toBeNull();
  });

  it("sends the ticked runs, the baseline and the threshold, and shows Rust's matrix", async () => {
    const user = userEvent.setup();
    mount(<Compare />);
    await pickTwo(user);
    await waitFor(() => expect(commands.compareRuns).toHaveBeenCalledWith({ run_ids: [1, 2], baseline: 1, threshold_pct: null }));
    // The threshold field shows the one Rust applied until it is edited.
    await waitFor(() => expect(screen.getByTestId("compare-threshold")).toHaveValue(5));
    await user.selectOptions(screen.getByTestId("compare-baseline"), "2");
    const threshold = screen.getByTestId("compare-threshold");
    await user.clear(threshold);
    await user.type(threshold, "12.5");
    await waitFor(() =>
      expect(commands.compareRuns).toHaveBeenLastCalledWith({ run_ids: [1, 2], baseline: 2, threshold_pct: 12.5 }),
    );
    const matrix = await screen.findByTestId("matrix-oltp_point_select");
    const verdicts = within(matrix)
      .getAllByTestId("matrix-row")
      .map((r) => r.getAttribute("data-verdict"));
    expect(verdicts).toEqual(["baseline", "baseline", "within_noise", "regressed"]);
    const noise = within(matrix).getAllByTestId("matrix-row")[2];
    expect(noise).toHaveTextContent("+4.0% (+2.5…+5.5)");
    // Within noise is a verdict of its own, in its own colour, with the noise's width.
    expect(within(noise).getByText("within noise ±2.0%")).toHaveClass("badge", "within_noise");
    const regressed = within(matrix).getAllByTestId("matrix-row")[3];
    expect(regressed).toHaveTextContent("−12.0% (−13.5…−10.5)");
    expect(within(regressed).getByText("REGRESSED")).toHaveClass("badge", "regressed");
    expect(screen.getByTestId("report-verdict")).toHaveTextContent("FAIL: 1 of 2 cells regressed, 0 improved, 1 within noise");
    expect(screen.getByTestId("executive-summary")).toHaveTextContent("hw_cloud delivers 12% less oltp_point_select TPS than idc at 1 of 2 thread counts");
    expect(screen.getByTestId("curve-tps-oltp_point_select")).toHaveAttribute("data-lines", "2");
  });

  it("shows the capacity at the latency target as Rust wrote it, and no such panel without one", async () => {
    const line = "At p95 ≤ 20 ms, idc sustains 4,210 TPS (48 threads); hw_cloud 3,380 TPS (32 threads): −19.7% (±2.1%)";
    commands.compareRuns.mockImplementation(() => ok({ ...compareView(), capacity: [line] }));
    const user = userEvent.setup();
    const { unmount } = mount(<Compare />);
    await pickTwo(user);
    expect(await screen.findByTestId("compare-capacity")).toHaveTextContent(line);
    unmount();
    commands.compareRuns.mockImplementation(() => ok(compareView()));
    mount(<Compare />);
    await pickTwo(user);
    await screen.findByTestId("report-view");
    expect(screen.queryByTestId("compare-capacity")).toBeNull();
  });

  it("unticking a run below two clears the comparison", async () => {
    const user = userEvent.setup();
    mount(<Compare />);
    await pickTwo(user);
    await screen.findByTestId("report-view");
    await user.click(screen.getByTestId("pick-run-2"));
    await waitFor(() => expect(screen.queryByTestId("report-view")).toBeNull());
  });

  it("shows Rust's error instead of figures that do not match the settings", async () => {
    const user = userEvent.setup();
    mount(<Compare />);
    await pickTwo(user);
    await screen.findByTestId("report-view");
    commands.compareRuns.mockImplementation(() =>
      Promise.resolve({ status: "error", error: { code: "report", message: "the threshold must be a positive percentage, not 0" } }),
    );
    await user.clear(screen.getByTestId("compare-threshold"));
    await user.type(screen.getByTestId("compare-threshold"), "0");
    expect(await screen.findByRole("alert")).toHaveTextContent("positive percentage");
    expect(screen.queryByTestId("report-view")).toBeNull();
  });

  it("exports through Rust's save dialog and shows the path written, or that nothing was", async () => {
    const user = userEvent.setup();
    commands.exportReport.mockImplementationOnce(() => ok("/tmp/out/cmp.pdf")).mockImplementationOnce(() => ok(null));
    mount(<Compare />);
    await pickTwo(user);
    await user.click(await screen.findByTestId("export-pdf"));
    expect(commands.exportReport).toHaveBeenCalledWith({ run_ids: [1, 2], baseline: 1, threshold_pct: null }, "pdf");
    expect(await screen.findByTestId("export-result")).toHaveTextContent("/tmp/out/cmp.pdf");
    await user.click(screen.getByTestId("export-csv"));
    expect(await screen.findByTestId("export-cancelled")).toHaveTextContent("nothing was written");
    expect(screen.queryByTestId("export-result")).toBeNull();
  });
});

describe("History", () => {
  it("exports the open run's own report (one run, no baseline)", async () => {
    const user = userEvent.setup();
    commands.getRun.mockImplementation(() =>
      ok({ row: rows[0], command_line: rows[0].command, failure: null, steps: [], points: [], server: [], mysql: [], warnings: [], plan_settings: [] }),
    );
    commands.exportReport.mockImplementation(() => ok("/tmp/run-1.html"));
    mount(<History />);
    await user.click(await screen.findByTestId("run-1"));
    await user.click(await screen.findByTestId("export-html"));
    expect(commands.exportReport).toHaveBeenCalledWith({ run_ids: [1], baseline: null, threshold_pct: null }, "html");
    expect(await screen.findByTestId("export-result")).toHaveTextContent("/tmp/run-1.html");
    expect(commands.compareRuns).toHaveBeenCalledWith({ run_ids: [1], baseline: null, threshold_pct: null });
  });

  it("shows a CLI run's recorded command line under its short name, and no second line for the app's", async () => {
    const user = userEvent.setup();
    const line = "dbdyno ladder --mysql-host=127.0.0.1 --mysql-password=*** --threads=1,2";
    commands.getRun.mockImplementation((id: number) =>
      ok({ row: rows[id - 1], command_line: id === 1 ? line : rows[id - 1].command, failure: null, steps: [], points: [], server: [], mysql: [], warnings: [], plan_settings: [] }),
    );
    mount(<History />);
    await user.click(await screen.findByTestId("run-1"));
    expect(await screen.findByTestId("run-command-line")).toHaveTextContent(line);
    await user.click(screen.getByTestId("run-2"));
    await waitFor(() => expect(screen.queryByTestId("run-command-line")).toBeNull());
  });

  it("charts the server and MySQL samples of a monitored run, and none for an unmonitored one", async () => {
    const user = userEvent.setup();
    const server = [
      { t_s: 1, cpu_pct: 40, disk_util_pct: 3 },
      { t_s: 2, cpu_pct: 55, disk_util_pct: 4 },
    ];
    const mysql = [{ t_s: 1, qps: 900, tps: 90 }];
    commands.getRun.mockImplementation((id: number) =>
      ok({ row: rows[id - 1], command_line: rows[id - 1].command, failure: null, steps: [], points: [], server: id === 1 ? server : [], mysql: id === 1 ? mysql : [], warnings: [], plan_settings: [] }),
    );
    mount(<History />);
    await user.click(await screen.findByTestId("run-1"));
    expect(await screen.findByTestId("history-chart-server")).toHaveAttribute("data-points", "2");
    expect(screen.getByTestId("history-chart-mysql")).toHaveAttribute("data-points", "1");
    await user.click(screen.getByTestId("run-2"));
    await waitFor(() => expect(screen.queryByTestId("history-chart-server")).toBeNull());
    expect(screen.queryByTestId("history-chart-mysql")).toBeNull();
  });
});
