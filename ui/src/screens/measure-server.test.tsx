import "../test/mocks";
import { describe, expect, it, vi, beforeEach } from "vitest";
import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { fail, ok } from "../test/mocks";

const commands = vi.hoisted(() => ({
  proposeMeasurement: vi.fn(),
  measureServer: vi.fn(),
  cancelMeasurement: vi.fn(),
}));
vi.mock("../bindings", () => ({ commands }));

import { MeasureServer } from "../components/MeasureServer";

const settings = {
  file_total_size: "2G",
  file_extra_flags: "direct",
  threads: 4,
  fileio_time_s: 20,
  cpu_time_s: 10,
  memory_time_s: 10,
};

const proposal = (busy: string | null) => ({
  host: "root@db1:22",
  datadir: "/data/mysql/",
  dir: "/data",
  why: "beside the data directory /data/mysql/, on its filesystem /data (ext4, /dev/sdb1)",
  busy_warning: busy,
  settings,
});

beforeEach(() => {
  vi.clearAllMocks();
});

describe("Measure the server", () => {
  it("shows the proposal, measures in the confirmed directory and lists the figures", async () => {
    const user = userEvent.setup();
    commands.proposeMeasurement.mockImplementation(() => ok(proposal("MySQL is busy (9 threads running): …")));
    commands.measureServer.mockImplementation(
      (_env: string, _dir: string, _s: unknown, channel: { onmessage: (m: unknown) => void }) => {
        channel.onmessage({ text: "fileio: prepare" });
        channel.onmessage({ text: "[1s] fileio: read 12.0 MiB/s, written 8.0 MiB/s" });
        return ok({
          host: "root@db1:22",
          dir: "/srv",
          figures: [{ label: "Random write IOPS", value: "3331.66" }],
          record_id: 7,
        });
      },
    );
    render(<MeasureServer env="idc" />);
    await user.click(screen.getByTestId("measure-propose"));
    expect(await screen.findByTestId("measure-why")).toHaveTextContent("beside the data directory /data/mysql/");
    expect(screen.getByTestId("measure-busy")).toHaveTextContent("9 threads running");
    const dir = screen.getByTestId("measure-dir");
    expect(dir).toHaveValue("/data");
    await user.clear(dir);
    await user.type(dir, "/srv");
    await user.clear(screen.getByTestId("measure-size"));
    await user.type(screen.getByTestId("measure-size"), "8G");
    await user.click(screen.getByTestId("measure-start"));
    expect(commands.measureServer).toHaveBeenCalledWith("idc", "/srv", { ...settings, file_total_size: "8G" }, expect.anything());
    expect(await screen.findByTestId("measure-result")).toHaveTextContent("Random write IOPS3331.66");
    expect(screen.getByTestId("measure-progress")).toHaveTextContent("[1s] fileio: read 12.0 MiB/s");
  });

  it("says why nothing was measured, and nothing starts without a directory", async () => {
    const user = userEvent.setup();
    commands.proposeMeasurement.mockImplementation(() => ok({ ...proposal(null), dir: null, why: "no other directory is on it" }));
    commands.measureServer.mockImplementation(() => fail("invalid", "not enough room in /data on root@db1:22"));
    render(<MeasureServer env="idc" />);
    await user.click(screen.getByTestId("measure-propose"));
    expect(await screen.findByTestId("measure-why")).toHaveTextContent("no other directory is on it");
    expect(screen.queryByTestId("measure-busy")).toBeNull();
    expect(screen.getByTestId("measure-start")).toBeDisabled();
    await user.type(screen.getByTestId("measure-dir"), "/data");
    await user.click(screen.getByTestId("measure-start"));
    expect(await screen.findByText(/not enough room/)).toBeInTheDocument();
  });
});
