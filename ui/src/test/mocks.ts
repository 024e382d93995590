// Module mocks shared by component tests: the generated commands (each a vi.fn that
// resolves to a Result like the real ones), the Tauri channel, and uPlot (no canvas in jsdom).
import { vi } from "vitest";
import type { ErrorCode } from "../bindings";

export const ok = <T,>(data: T) => Promise.resolve({ status: "ok" as const, data });
/** A command's error, as Rust's AppError arrives. */
export const fail = (code: ErrorCode, message: string) => Promise.resolve({ status: "error" as const, error: { code, message } });

vi.mock("uplot", () => import("./uplot"));
vi.mock("uplot/dist/uPlot.min.css", () => ({}));
vi.mock("@tauri-apps/api/core", () => ({
  Channel: class {
    onmessage: (m: unknown) => void = () => {};
  },
}));

