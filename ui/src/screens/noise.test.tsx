// Verdicts that know their noise, on the screens: the Plan screen's latency target,
// capacity search and rate ladder reach Rust in the form and Rust's refusal is shown;
// the Run screen renders each finished step's intervals, latency-target mark, mode,
// repeat and warnings as Rust computed them; Compare gives the curves their error bars.
import "../test/mocks";
import { describe, expect, it, vi, beforeEach } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { fail, ok } from "../test/mocks";
import { form, preview, randTypes, snapshot, step } from "../test/fixtures";
import { compareView, runRow } from "../test/compare-fixtures";
import { mount } from "../test/mount";
import type { StepNoise } from "../bindings";

const commands = vi.hoisted(() => ({
  planDefaults: vi.fn(),
  planPreview: vi.fn(),
  startRun: vi.fn(),
  cancelRun: vi.fn(),
  listRuns: vi.fn(),
  compareRuns: vi.fn(),
  exportReport: vi.fn(),
}));
vi.mock("../bindings", () => ({ commands }));

import { Plan } from "./Plan";
import { Run } from "./Run";
import { Compare } from "./Compare";

const lastForm = () => commands.planPreview.mock.calls.at(-1)?.[1];

beforeEach(() => {
  vi.clearAllMocks();
  commands.planDefaults.mockImplementation(() => ok({ form, scenarios_available: ["oltp_point_select"], rand_types: randTypes }));
  commands.planPreview.mockImplementation(() => ok(preview));
  commands.listRuns.mockImplementation(() => ok([runRow(1, "idc"), runRow(2, "hw_cloud")]));
  commands.compareRuns.mockImplementation(() => ok(compareView()));
});

describe("Plan: latency target and capacity search", () => {
  it("sends the target as typed and the search's extra steps", async () => {
    const user = userEvent.setup();
    mount(<Plan />);
    await user.type(await screen.findByTestId("sla"), "p95<=20ms");
    const k = screen.getByTestId("sla-search");
    expect(k).toHaveValue(0);
    await user.type(k, "{Backspace}3");
    await waitFor(() => expect(lastForm()?.load).toMatchObject({ sla: "p95<=20ms", sla_search: 3 }));
    await user.type(k, "{Backspace}0");
    await waitFor(() => expect(lastForm()?.load.sla_search).toBe(0));
  });

  it("shows Rust's refusal of a target it cannot read", async () => {
    const user = userEvent.setup();
    commands.planPreview.mockImplementation((_env: string, f: typeof form) =>
      f.load.sla === "p95<20ms" ? fail("invalid", "plan.sla: write the target as p95<=20ms") : ok(preview),
    );
    mount(<Plan />);
    await user.type(await screen.findByTestId("sla"), "p95<20ms");
    expect(await screen.findByRole("alert")).toHaveTextContent("plan.sla: write the target as p95<=20ms");
    expect(screen.getByTestId("start-run")).toBeDisabled();
  });

  it("says how much the search may add to the total time", async () => {
    commands.planPreview.mockImplementation(() => ok({ ...preview, search_max_seconds: 90 }));
    mount(<Plan />);
    expect(await screen.findByTestId("plan-search-time")).toHaveTextContent("up to 1m 30s more");
    expect(screen.getByTestId("plan-total")).toHaveTextContent("3m 00s +");
  });
});

describe("Plan: rate ladder", () => {
  it("sends the rates and their spacing, and says the thread ladder is replaced", async () => {
    const user = userEvent.setup();
    mount(<Plan />);
    expect(await screen.findByTestId("plan-threads")).not.toHaveAttribute("data-replaced");
    expect(screen.queryByTestId("threads-replaced")).toBeNull();
    await user.type(screen.getByTestId("rate-input"), "200{Enter}");
    await user.type(screen.getByTestId("rate-input"), "100{Enter}");
    await user.selectOptions(screen.getByTestId("rate-dist"), "poisson");
    await waitFor(() => expect(lastForm()?.load).toMatchObject({ rates: [100, 200], rate_dist: "poisson" }));
    expect(screen.getByTestId("threads-replaced")).toHaveTextContent("Replaced by the rate ladder");
    expect(screen.getByTestId("threads-replaced")).toHaveTextContent("100/s, 200/s");
    await user.click(screen.getByTestId("rate-clear"));
    await waitFor(() => expect(lastForm()?.load.rates).toEqual([]));
    expect(screen.queryByTestId("threads-replaced")).toBeNull();
  });

  it("shows the preview's open-loop note when Rust says a rate ladder runs", async () => {
    commands.planPreview.mockImplementation(() => ok({ ...preview, rate_ladder: true }));
    mount(<Plan />);
    expect(await screen.findByTestId("plan-rate-ladder")).toHaveTextContent("one step per arrival rate");
  });
});

const noise = (over: Partial<StepNoise> = {}): StepNoise => ({
  tps_half_width_pct: 2.1,
  p95_interval_ms: { lower: 1.2, upper: 1.4 },
  cv_pct: 3,
  settled: true,
  sla: null,
  rate_not_sustained: null,
  ...over,
});

describe("Run: a finished step's noise", () => {
  it("shows the TPS and p95 intervals, the repeat and the target's mark", async () => {
    const snap = snapshot({
      steps: [
        step(0, {
          status: "done",
          tps: 1234,
          p95_ms: 1.3,
          repeat: "repeat 2/3",
          noise: noise({ sla: { within: true, text: "p95 1.3 ms (CI ≤ 1.4) within p95≤20ms" } }),
        }),
        step(1, { status: "done", tps: 900, p95_ms: 30, noise: noise({ sla: { within: false, text: "p95 30.0 ms (CI ≤ 31.0) beyond p95≤20ms" } }) }),
        step(2, { status: "running", repeat: "repeat 1/3" }),
      ],
    });
    mount(<Run />, snap);
    const rows = within(await screen.findByTestId("step-table")).getAllByRole("row");
    expect(within(rows[1]).getByTestId("step-tps")).toHaveTextContent("1,234.0 ± 2.1%");
    expect(within(rows[1]).getByTestId("step-p95")).toHaveTextContent("1.30 (1.20–1.40)");
    expect(within(rows[1]).getByTestId("step-repeat")).toHaveTextContent("repeat 2/3");
    expect(within(rows[1]).getByTestId("step-sla")).toHaveTextContent("within p95≤20ms");
    expect(within(rows[1]).getByTestId("step-sla")).toHaveClass("within");
    expect(within(rows[2]).getByTestId("step-sla")).toHaveClass("beyond");
    expect(within(rows[2]).queryByTestId("step-repeat")).toBeNull();
    // A step still running has no interval yet.
    expect(within(rows[3]).getByTestId("step-tps")).not.toHaveTextContent("±");
    expect(within(rows[3]).queryByTestId("step-sla")).toBeNull();
    expect(within(rows[3]).getByTestId("step-repeat")).toHaveTextContent("repeat 1/3");
  });

  it("names an open-loop step's mode, and says when its rate was not kept or it never settled", async () => {
    const snap = snapshot({
      steps: [
        step(0, {
          status: "done",
          tps: 480,
          mode: "open loop at 500/s",
          noise: noise({ rate_not_sustained: "achieved 480.0/s, below 95% of the target 500/s", settled: false, tps_half_width_pct: null }),
        }),
        step(1, { status: "done", tps: 900, noise: noise() }),
      ],
    });
    mount(<Run />, snap);
    const rows = within(await screen.findByTestId("step-table")).getAllByRole("row");
    expect(within(rows[1]).getByTestId("step-mode")).toHaveTextContent("open loop at 500/s");
    const rate = within(rows[1]).getByTestId("step-rate");
    expect(rate).toHaveTextContent("rate not sustained");
    expect(rate).toHaveAttribute("title", "achieved 480.0/s, below 95% of the target 500/s");
    expect(within(rows[1]).getByTestId("step-unsettled")).toHaveTextContent("never settled");
    expect(within(rows[1]).getByTestId("step-tps")).not.toHaveTextContent("±");
    expect(within(rows[2]).queryByTestId("step-mode")).toBeNull();
    expect(within(rows[2]).queryByTestId("step-rate")).toBeNull();
    expect(within(rows[2]).queryByTestId("step-unsettled")).toBeNull();
  });
});

describe("Compare: error bars and within-noise cells", () => {
  it("passes each cell's interval to the dyno curves as an error bar", async () => {
    const user = userEvent.setup();
    mount(<Compare />);
    await user.click(await screen.findByTestId("pick-run-1"));
    await user.click(screen.getByTestId("pick-run-2"));
    // Two runs × two thread counts, each cell with its TPS and p95 interval.
    expect(await screen.findByTestId("curve-tps-oltp_point_select")).toHaveAttribute("data-bars", "4");
    expect(screen.getByTestId("curve-p95-oltp_point_select")).toHaveAttribute("data-bars", "4");
    const row = within(screen.getByTestId("matrix-oltp_point_select")).getAllByTestId("matrix-row")[2];
    expect(row).toHaveAttribute("data-verdict", "within_noise");
    expect(row.querySelectorAll("td.delta")).toHaveLength(2);
  });
});
