import { describe, expect, it, vi } from "vitest";

describe("locale guard", () => {
  it("replaces a language tag Intl rejects (LANG=C) before uPlot loads", async () => {
    Object.defineProperty(navigator, "language", { value: "C", configurable: true });
    vi.resetModules();
    await import("./locale");
    expect(navigator.language).toBe("en-US");
    expect(() => new Intl.NumberFormat(navigator.language)).not.toThrow();
  });
});
