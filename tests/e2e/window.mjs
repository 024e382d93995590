// What every GUI spec does with the app's window: find elements by data-testid, click,
// type over a field, wait for a state, read the Run screen, save screenshots, and a
// test that leaves a screenshot when it fails. One copy for every *.test.mjs file;
// node:test runs each file in its own process, so the browser and the screenshot count
// set here are that file's own.
import { test as nodeTest } from "node:test";
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const SANDBOX_SCRIPT = resolve(dirname(fileURLToPath(import.meta.url)), "../../scripts/sandbox.sh");

/** SQL on the sandbox the suite runs against, as its admin (scripts/sandbox.sh sql). */
export const sandboxSql = (sql) => execFileSync("bash", [SANDBOX_SCRIPT, "sql", "-e", sql], { stdio: "pipe" });

/** A variable run.sh sets; a spec started any other way says how to start it. */
export const env = (k) => {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is not set: run tests/e2e/run.sh`);
  return v;
};

/** @type {WebdriverIO.Browser} */
let b;
let shots = 0;
let prefix = "";
const OUT = env("E2E_OUT");
mkdirSync(OUT, { recursive: true });

/** The browser the helpers below drive, and the prefix of this file's screenshots. */
export function useWindow(browser, { shotPrefix = "" } = {}) {
  b = browser;
  prefix = shotPrefix;
}

/** A test that leaves a screenshot of the window when it fails. */
export function test(name, fn) {
  nodeTest(name, async () => {
    try {
      await fn();
    } catch (e) {
      await shot(`FAILED-${name.split(":")[0]}`, { top: false }).catch(() => {});
      throw e;
    }
  });
}

export const tid = (id) => b.$(`[data-testid="${id}"]`);

/** Saves the window; `top` scrolls the screen to its top first (the screen as it
 *  opens), else it is saved where the last action left it. */
export async function shot(name, { top = true } = {}) {
  shots += 1;
  if (top) {
    await b.execute(() => document.querySelector("main")?.scrollTo(0, 0));
    await b.pause(200);
  }
  const file = join(OUT, `${prefix}${String(shots).padStart(2, "0")}-${name}.png`);
  await b.saveScreenshot(file);
  return file;
}

/** Saves the window with the element `id` scrolled to the top of the screen. */
export async function shotOf(name, id) {
  const scroll = () =>
    b.execute((sel) => document.querySelector(sel)?.scrollIntoView({ block: "start" }), `[data-testid="${id}"]`);
  // Once more after a pause: charts rebuilt for a new theme change the page's height.
  await scroll();
  await b.pause(400);
  await scroll();
  return shot(name, { top: false });
}

export async function click(id) {
  const el = await tid(id);
  await el.waitForClickable({ timeout: 15000 });
  await el.click();
}

// WebDriver's key codes: Control (pressed, then released by its second use), Backspace.
const CONTROL = "\uE009";
const BACKSPACE = "\uE003";
export async function type(id, value) {
  const el = await tid(id);
  await el.waitForDisplayed({ timeout: 10000 });
  const want = String(value);
  // React listens to input events. clearValue empties the field without one, so a
  // re-render before the typing put the old value back, at every try ("2" then "21",
  // "211", "2111", seen in CI on a busy machine). Selecting what the field holds and
  // typing over it is one input event that React sees. The field is read back and typed
  // again until it holds what was asked.
  for (let i = 0; i < 3; i++) {
    await el.addValue(`${CONTROL}a${CONTROL}${want.length ? want : BACKSPACE}`);
    if ((await el.getValue()) === want) return;
  }
  throw new Error(`${id}: typed ${want}, the field holds ${await el.getValue()}`);
}

export async function textOf(id, timeout = 20000) {
  const el = await tid(id);
  await el.waitForDisplayed({ timeout });
  return el.getText();
}

/** Waits for `fn` to return something truthy, polling; returns it. An error marked
 * `fatal` ends the wait at once (a run refused at its start will not complete however
 * long we wait). */
export async function until(what, fn, timeout = 60000) {
  let last, fatal;
  await b.waitUntil(
    async () => {
      try {
        last = await fn();
      } catch (e) {
        if (!e.fatal) throw e;
        fatal = e;
        return true;
      }
      return last;
    },
    { timeout, interval: 250, timeoutMsg: `timed out waiting for ${what}` },
  );
  if (fatal) throw fatal;
  return last;
}

/** The statuses of the Run screen's step table, row by row. */
export const stepStatuses = () =>
  b.execute(() =>
    [...document.querySelectorAll('[data-testid="step-table"] tbody tr')].map((r) => r.getAttribute("data-status")),
  );

/** The Run screen's status badge; a run Rust refused to start throws, with its reason. */
export async function runStatus() {
  const refused = await b.execute(() => document.querySelector('[data-testid="run-refused"]')?.textContent ?? null);
  if (refused) throw Object.assign(new Error(`the run did not start: ${refused}`), { fatal: true });
  return b.execute(() => document.querySelector("main h1 + .badge")?.textContent ?? "");
}

/** The runs of environment `env` the Compare (or History) table lists: [id, state]
 * pairs. Only that environment's: until the filter applies, the table lists them all. */
export const listedRuns = (env) =>
  b.execute(
    (env) =>
      [...document.querySelectorAll('[data-testid="runs-table"] tbody tr[data-state]')]
        .filter((r) => r.getAttribute("data-env") === env)
        .map((r) => [Number(r.getAttribute("data-testid").replace("run-", "")), r.getAttribute("data-state")]),
    env,
  );

/** Empties the Plan screen's thread ladder. Clicked again if the ladder is still there:
 * choosing a scenario re-lays the form out, and a click in the middle of that missed
 * the button (seen in CI with tpcc). */
export async function clearLadder() {
  for (let attempt = 1; ; attempt++) {
    await click("thread-clear");
    try {
      await until("an empty ladder", async () => (await b.$$(".chip")).length === 0, 5000);
      return;
    } catch (e) {
      if (attempt === 3) throw e;
    }
  }
}
