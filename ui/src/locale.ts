// WebKitGTK reports the POSIX locale as the page's language; under LANG=C (servers,
// CI, containers) navigator.language is "C", which Intl rejects, and uPlot builds an
// Intl.NumberFormat from it when it loads. Imported first by main.tsx, before uPlot.
function valid(tag: string | undefined): boolean {
  try {
    return !!tag && !!new Intl.NumberFormat(tag);
  } catch {
    return false;
  }
}

if (!valid(navigator.language)) {
  Object.defineProperty(navigator, "language", { value: "en-US", configurable: true });
  Object.defineProperty(navigator, "languages", { value: ["en-US"], configurable: true });
}

export {};
