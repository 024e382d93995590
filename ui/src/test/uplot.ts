// A stand-in for uPlot in tests (jsdom has no canvas): it keeps the options each chart
// was made with, so that a test can call the axes' size callbacks and the draw hooks
// itself. Used as `vi.mock("uplot", () => import("../test/uplot"))`.
export const made = { opts: [] as unknown[] };

export default class {
  constructor(opts: unknown) {
    made.opts.push(opts);
  }
  setData() {}
  setSize() {}
  destroy() {}
}
