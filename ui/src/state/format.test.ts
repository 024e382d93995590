import { describe, expect, it } from "vitest";
import { count, duration, num, signedPct } from "./format";

describe("format", () => {
  it("counts in the singular for one, the plural otherwise", () => {
    expect(count(1, "thread")).toBe("1 thread");
    expect(count(2, "thread")).toBe("2 threads");
    expect(count(0, "cell")).toBe("0 cells");
    expect(count(1, "cell")).toBe("1 cell");
    expect(count(3, "query")).toBe("3 queries");
    expect(count(1200, "row")).toBe("1,200 rows");
  });
  it("shows missing figures as a dash", () => {
    expect(num(null)).toBe("—");
    expect(num(1234.567, 1)).toBe("1,234.6");
  });
  it("writes durations the short way", () => {
    expect(duration(5)).toBe("5s");
    expect(duration(65)).toBe("1m 05s");
    expect(duration(3700)).toBe("1h 01m");
    expect(duration(null)).toBe("—");
  });
  it("writes changes with their sign, as the reports do", () => {
    expect(signedPct(12.34)).toBe("+12.3%");
    expect(signedPct(-4)).toBe("−4.0%");
    expect(signedPct(0.01)).toBe("±0.0%");
    expect(signedPct(-1234.5)).toBe("−1,234.5%");
    expect(signedPct(null)).toBe("—");
  });
});
