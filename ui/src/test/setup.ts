import "@testing-library/jest-dom/vitest";

// jsdom has no ResizeObserver; the charts observe their container to size themselves.
globalThis.ResizeObserver ??= class {
  observe() {}
  disconnect() {}
  unobserve() {}
} as unknown as typeof ResizeObserver;
