// The HTML report as managers open it: a comparison of three environments (one with a
// CJK name) and a single run, each opened in headless Chromium and Firefox ESR (Debian's
// packages), driven by puppeteer-core (Firefox through its WebDriver BiDi; Debian 12 has
// no geckodriver). For each: no console error and no request beyond the file itself,
// every chart drawn, no horizontal overflow and every table inside the page, at a desktop
// width and at A4's printable width; a screenshot of each. Chromium then prints the
// comparison to PDF, and pdftotext reads it back.
//
// run.sh writes the reports (dbdyno report on the fixtures) and sets REPORTS and OUT.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import puppeteer from "puppeteer-core";

const env = (k) => {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is not set: run tests/browser/run.sh`);
  return v;
};
const REPORTS = env("REPORTS");
const OUT = env("OUT");

const BROWSERS = [
  {
    name: "chromium",
    // As root (CI is), Chromium's sandbox cannot start; the page is a local file.
    options: { browser: "chrome", executablePath: process.env.CHROMIUM_BIN || "/usr/bin/chromium", args: ["--no-sandbox"] },
  },
  {
    name: "firefox",
    options: { browser: "firefox", executablePath: process.env.FIREFOX_BIN || "/usr/bin/firefox-esr" },
  },
];

const REPORTS_OPENED = [
  { name: "comparison", file: "comparison.html", title: "Benchmark comparison" },
  { name: "single", file: "single.html", title: "seed 000 example" },
];

/** 1280 px: a laptop's browser window; 794 px: A4's width at 96 dpi, what print lays out. */
const WIDTHS = [
  { name: "desktop", width: 1280 },
  { name: "a4", width: 794 },
];

const open = new Map();

before(async () => {
  for (const b of BROWSERS) {
    open.set(b.name, await puppeteer.launch({ headless: true, ...b.options }));
  }
});

after(async () => {
  for (const browser of open.values()) await browser.close().catch(() => {});
});

/** The page's layout facts, measured in the page. */
function layoutFacts() {
  const page = document.documentElement.clientWidth;
  const charts = [...document.querySelectorAll("figure svg")].map((svg) => {
    const r = svg.getBoundingClientRect();
    return {
      title: svg.closest("figure")?.textContent?.slice(0, 60) ?? "",
      width: r.width,
      height: r.height,
      marks: svg.querySelectorAll("path, polyline, line, circle, rect").length,
      right: r.right + window.scrollX,
    };
  });
  const tables = [...document.querySelectorAll("table")].map((t) => {
    const r = t.getBoundingClientRect();
    return { caption: (t.caption?.textContent ?? t.rows[0]?.textContent ?? "").slice(0, 60), right: r.right + window.scrollX };
  });
  return { page, scrollWidth: document.documentElement.scrollWidth, charts, tables };
}

for (const b of BROWSERS) {
  for (const r of REPORTS_OPENED) {
    test(`${b.name}: the ${r.name} report opens clean, every chart drawn, nothing past the page`, async () => {
      const browser = open.get(b.name);
      const page = await browser.newPage();
      const problems = [];
      page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
      page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
      const url = pathToFileURL(join(REPORTS, r.file)).href;
      page.on("request", (q) => q.url() !== url && !q.url().startsWith("data:") && problems.push(`request: ${q.url()}`));
      for (const w of WIDTHS) {
        await page.setViewport({ width: w.width, height: 900 });
        await page.goto(url, { waitUntil: "load" });
        assert.ok((await page.title()).includes(r.title), await page.title());
        const facts = await page.evaluate(layoutFacts);
        assert.ok(facts.charts.length >= 1, `${w.name}: charts in the page`);
        for (const c of facts.charts) {
          assert.ok(c.width > 50 && c.height > 50 && c.marks > 3, `${w.name}: a chart not drawn: ${JSON.stringify(c)}`);
          assert.ok(c.right <= facts.page + 1, `${w.name}: a chart past the page (${facts.page} px): ${JSON.stringify(c)}`);
        }
        assert.ok(facts.scrollWidth <= facts.page + 1, `${w.name}: the page scrolls sideways: ${facts.scrollWidth} > ${facts.page}`);
        for (const t of facts.tables) {
          assert.ok(t.right <= facts.page + 1, `${w.name}: a table past the page (${facts.page} px): ${JSON.stringify(t)}`);
        }
        await page.screenshot({ path: join(OUT, `browser-${b.name}-${r.name}-${w.name}.png`), fullPage: w.name === "desktop" });
      }
      assert.deepEqual(problems, []);
      await page.close();
    });
  }
}

test("chromium: the comparison printed to PDF reads back with its title, charts and tables", async () => {
  const page = await open.get("chromium").newPage();
  await page.goto(pathToFileURL(join(REPORTS, "comparison.html")).href, { waitUntil: "load" });
  const pdf = join(OUT, "browser-chromium-comparison.pdf");
  writeFileSync(pdf, await page.pdf({ format: "A4", printBackground: true }));
  await page.close();
  const text = execFileSync("pdftotext", ["-layout", pdf, "-"]).toString();
  for (const words of ["Benchmark comparison", "华为云", "oltp_point_select"]) {
    assert.ok(text.includes(words), `"${words}" in the printed PDF`);
  }
  const pages = Number(/Pages:\s+(\d+)/.exec(execFileSync("pdfinfo", [pdf]).toString())?.[1]);
  assert.ok(pages >= 3, `${pages} pages`);
  // Its first page as an image, to look at beside the screenshots.
  execFileSync("pdftoppm", ["-r", "50", "-png", "-f", "1", "-l", "1", pdf, join(OUT, "browser-chromium-comparison-pdf")]);
});
