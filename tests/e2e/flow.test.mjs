// The desktop app end to end: the real window (under Xvfb), driven through
// tauri-driver → WebKitWebDriver by WebdriverIO, against the sandbox MariaDB and sshd.
// run.sh builds the app, starts everything and sets the environment read here.
//
// The flow: create an environment, store its password in the keyring, test MySQL and
// SSH (accepting the host key), run the checks and apply two fixes, plan and run a
// short ladder while the live charts fill, cancel a second run midway and see its
// finished steps kept, open both in the history. A screenshot of every screen goes
// to $E2E_OUT.
import { after, before, test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { remote } from "webdriverio";

const env = (k) => {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is not set: run tests/e2e/run.sh`);
  return v;
};
const OUT = env("E2E_OUT");
const ENV_NAME = `e2e-${process.pid}`;
mkdirSync(OUT, { recursive: true });

/** @type {WebdriverIO.Browser} */
let b;
let shots = 0;

/** A test that leaves a screenshot of the window when it fails. */
function test(name, fn) {
  nodeTest(name, async () => {
    try {
      await fn();
    } catch (e) {
      await shot(`FAILED-${name.split(":")[0]}`, { top: false }).catch(() => {});
      throw e;
    }
  });
}

const tid = (id) => b.$(`[data-testid="${id}"]`);
/** Saves the window; `top` scrolls the screen to its top first (the screen as it
 *  opens), else it is saved where the last action left it. */
async function shot(name, { top = true } = {}) {
  shots += 1;
  if (top) await b.execute(() => document.querySelector("main")?.scrollTo(0, 0));
  const file = join(OUT, `${String(shots).padStart(2, "0")}-${name}.png`);
  await b.saveScreenshot(file);
  return file;
}
async function click(id) {
  const el = await tid(id);
  await el.waitForClickable({ timeout: 15000 });
  await el.click();
}
async function type(id, value) {
  const el = await tid(id);
  await el.waitForDisplayed({ timeout: 10000 });
  await el.clearValue();
  // React listens to input events: clear, then type the new value.
  if (String(value).length) await el.addValue(String(value));
}
async function textOf(id, timeout = 20000) {
  const el = await tid(id);
  await el.waitForDisplayed({ timeout });
  return el.getText();
}
/** Waits until `fn` returns a truthy value, polling; returns it. */
async function until(what, fn, timeout = 60000) {
  let last;
  await b.waitUntil(
    async () => {
      last = await fn();
      return last;
    },
    { timeout, interval: 250, timeoutMsg: `timed out waiting for ${what}` },
  );
  return last;
}
const stepStatuses = async () =>
  b.execute(() =>
    [...document.querySelectorAll('[data-testid="step-table"] tbody tr')].map((r) => r.getAttribute("data-status")),
  );
const runStatus = async () => b.execute(() => document.querySelector("main h1 + .badge")?.textContent ?? "");
const points = async (id) => Number(await (await tid(id)).getAttribute("data-points"));

before(async () => {
  b = await remote({
    hostname: "127.0.0.1",
    port: Number(process.env.TAURI_DRIVER_PORT || 4444),
    logLevel: "warn",
    connectionRetryTimeout: 120000,
    capabilities: {
      "tauri:options": { application: env("DBDYNO_APP_BIN") },
      // WebKitWebDriver speaks classic WebDriver only (no BiDi).
      "wdio:enforceWebDriverClassic": true,
    },
  });
  await (await b.$('[data-testid="nav-environments"]')).waitForDisplayed({ timeout: 60000 });
});

after(async () => {
  if (b) await b.deleteSession();
});

test("environments: create one, store the password, test MySQL and SSH, accept the host key", async () => {
  await shot("environments");
  await (await b.$("button=New environment")).click();
  await type("env-name", ENV_NAME);
  await type("mysql-host", env("DBDYNO_TEST_MYSQL_HOST"));
  await type("mysql-port", env("DBDYNO_TEST_MYSQL_PORT"));
  await type("mysql-user", env("DBDYNO_TEST_MYSQL_ADMIN_USER"));
  await type("mysql-db", env("E2E_SCHEMA"));
  await click("ssh-enabled");
  await type("ssh-host", env("DBDYNO_TEST_SSH_HOST"));
  await type("ssh-port", env("DBDYNO_TEST_SSH_PORT"));
  await type("ssh-user", env("DBDYNO_TEST_SSH_USER"));
  await (await tid("ssh-login")).selectByAttribute("value", "key");
  await type("ssh-key", env("DBDYNO_TEST_SSH_KEY"));
  await click("save-env");
  await (await tid("secret-mysql")).waitForDisplayed({ timeout: 15000 });
  await type("secret-mysql", env("DBDYNO_TEST_MYSQL_ADMIN_PASSWORD"));
  await click("store-mysql");
  await until("the password to be stored", async () => (await b.$("span*=stored ✓")).isExisting(), 10000);

  await click("test-mysql");
  const mysql = await textOf("mysql-result");
  assert.match(mysql, /MySQL: OK/, mysql);
  assert.match(mysql, /MariaDB/, mysql);

  await click("test-ssh");
  const first = await textOf("ssh-result");
  assert.match(first, /new host key/, first);
  const fingerprint = await textOf("ssh-fingerprint");
  assert.match(fingerprint, /^SHA256:/);
  await shot("environments-host-key", { top: false });
  await click("accept-host-key");
  await until("SSH to pass", async () => /SSH: OK/.test(await textOf("ssh-result")), 20000);
  await shot("environments-tested", { top: false });
});

test("checks: run the suite, apply the max_prepared_stmt_count and schema fixes", async () => {
  // A plan whose largest step needs more prepared statements than the sandbox allows
  // (16382): the default scenarios and ladder (up to 128 threads) on 16 tables.
  await click("use-env");
  await click("nav-plan");
  await type("tables", 16);
  await until(
    "a plan above the sandbox's prepared statement limit",
    async () => Number((await textOf("peak-ps")).replace(/,/g, "")) > 16382,
    15000,
  );
  await (await tid("plan-preview")).waitForDisplayed({ timeout: 15000 });
  await click("nav-checks");
  await click("run-checks");
  const ps = await tid("check-mysql.max_prepared_stmt_count");
  await ps.waitForDisplayed({ timeout: 60000 });
  assert.notEqual(await ps.getAttribute("data-verdict"), "pass", "the sandbox keeps the default limit");
  await shot("checks");
  await click("fix-mysql.max_prepared_stmt_count");
  await until("the fix to be applied", async () => (await tid("fix-applied")).isExisting(), 60000);
  assert.match(await textOf("fix-applied"), /SET GLOBAL max_prepared_stmt_count/);
  await until(
    "the limit check to pass",
    async () => (await (await tid("check-mysql.max_prepared_stmt_count")).getAttribute("data-verdict")) === "pass",
    30000,
  );
  // The schema of this environment does not exist yet: one click creates it.
  const fixes = await b.$$('[data-testid^="fix-"]');
  for (const f of fixes) {
    const id = await f.getAttribute("data-testid");
    if (id.includes("schema")) {
      await f.click();
      await until("the schema fix", async () => /CREATE DATABASE/.test(await textOf("fix-applied")), 30000);
    }
  }
  await shot("checks-fixed");
});

async function planShortLadder({ threads, time, prepare }) {
  await click("nav-plan");
  await (await tid("plan-preview")).waitForDisplayed({ timeout: 15000 });
  for (const box of await b.$$('input[data-testid^="scenario-"]')) {
    const want = (await box.getAttribute("data-testid")) === "scenario-oltp_point_select";
    if ((await box.isSelected()) !== want) await box.click();
  }
  await click("thread-clear");
  for (const [i, t] of threads.entries()) {
    await type("thread-input", t);
    await click("thread-add");
    await until(`${i + 1} thread count(s)`, async () => (await b.$$(".chip")).length === i + 1, 5000);
  }
  await type("time", time);
  await type("warmup", 0);
  await type("cooldown", 1);
  await type("tables", 1);
  await type("table-size", 2000);
  for (const [k, v] of [["prepare", prepare], ["prewarm", false], ["cleanup", false]]) {
    const box = await tid(`opt-${k}`);
    if ((await box.isSelected()) !== v) await box.click();
  }
  // Steps, the cool-downs between them, and prepare when asked.
  const phases = threads.length * 2 - 1 + (prepare ? 1 : 0);
  await until(
    `a preview of ${phases} phases`,
    async () => (await b.$$('[data-testid="plan-phases"] li')).length === phases,
    15000,
  );
}

test("plan and run a short ladder with live charts", async () => {
  await planShortLadder({ threads: [1, 2], time: 3, prepare: true });
  await shot("plan");
  await click("start-run");
  await until("live TPS points", async () => (await points("chart-tps")) >= 2, 90000);
  await shot("run-live");
  const seen = await points("chart-tps");
  await until("more points", async () => (await points("chart-tps")) > seen, 20000);
  await until("the run to complete", async () => /complete/.test(await runStatus()), 120000);
  assert.deepEqual(await stepStatuses(), ["done", "done"]);
  assert.ok((await points("chart-server")) > 0, "server CPU chart has samples");
  await shot("run-complete");
});

test("cancel a second run midway: its finished steps are kept", async () => {
  await planShortLadder({ threads: [1, 2, 4], time: 4, prepare: false });
  await click("start-run");
  await until("the first step to finish", async () => (await stepStatuses())[0] === "done", 90000);
  await click("cancel-run");
  await until("the run to be cancelled", async () => /cancelled/.test(await runStatus()), 60000);
  const statuses = await stepStatuses();
  assert.equal(statuses[0], "done", statuses.join());
  assert.ok(statuses.slice(1).every((s) => s === "cancelled" || s === "skipped" || s === "done"), statuses.join());
  assert.ok(statuses.includes("skipped") || statuses.includes("cancelled"), statuses.join());
  await shot("run-cancelled");
});

test("history: both runs are there, the cancelled one keeps its steps", async () => {
  await click("nav-history");
  await (await tid("filter-env")).selectByAttribute("value", ENV_NAME);
  await until("two runs", async () => (await b.$$('[data-testid="runs-table"] tbody tr[data-state]')).length >= 2);
  const runs = await b.execute(() =>
    [...document.querySelectorAll('[data-testid="runs-table"] tbody tr[data-state]')].map((r) => [
      r.getAttribute("data-testid"),
      r.getAttribute("data-state"),
    ]),
  );
  const states = runs.map(([, state]) => state);
  assert.ok(states.includes("complete") && states.includes("cancelled"), states.join());
  // Looked up afresh (the table re-renders while the filter applies); a cell, as
  // WebKitWebDriver does not count a <tr> as interactable.
  const id = runs.find(([, state]) => state === "cancelled")[0];
  await (await b.$(`[data-testid="${id}"] td`)).click();
  await (await tid("run-detail")).waitForDisplayed({ timeout: 15000 });
  const kept = await stepStatuses();
  assert.ok(kept.length >= 1 && kept[0] === "done", kept.join());
  await shot("history");
  await (await tid("theme")).selectByAttribute("value", "dark");
  await shot("history-dark");
  await click("nav-run");
  await shot("run-dark");
  await (await tid("theme")).selectByAttribute("value", "light");
});
