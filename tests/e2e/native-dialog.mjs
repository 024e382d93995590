// The app's native GTK dialogs (save, open, message) under Xvfb, driven with xdotool.
// WebDriver reaches only the page; these dialogs are separate X windows that the Rust
// side opens. There is no window manager under Xvfb, so nothing focuses a new window by
// itself: each helper finds the dialog by its title, gives it the keyboard focus
// (XSetInputFocus), and types through XTEST like a keyboard would (toolkits may ignore
// the synthetic events `xdotool key --window` sends).
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function xdotool(...args) {
  const { stdout } = await run("xdotool", args.map(String), { timeout: 15000 });
  return stdout.trim();
}

/** Visible windows whose title matches `title` (a regular expression, as xdotool reads it). */
export async function windowsNamed(title) {
  try {
    const out = await xdotool("search", "--onlyvisible", "--name", title);
    return out.split("\n").filter(Boolean);
  } catch {
    return []; // xdotool exits 1 when nothing matches
  }
}

/** Waits for a visible window titled `title`; returns its id. */
export async function waitForWindow(title, timeout = 20000) {
  const end = Date.now() + timeout;
  for (;;) {
    const ids = await windowsNamed(title);
    if (ids.length) return ids[ids.length - 1];
    if (Date.now() > end) throw new Error(`no window titled /${title}/ within ${timeout} ms`);
    await sleep(200);
  }
}

/** Waits until no visible window is titled `title` (the dialog answered and closed). */
export async function waitForNoWindow(title, timeout = 20000) {
  const end = Date.now() + timeout;
  while ((await windowsNamed(title)).length) {
    if (Date.now() > end) throw new Error(`window /${title}/ still open after ${timeout} ms`);
    await sleep(200);
  }
}

/** Gives the dialog the keyboard focus and waits a moment for GTK to take it (there
 *  is no window manager to raise or activate it). */
async function focus(id) {
  await xdotool("windowraise", id);
  await xdotool("windowfocus", id);
  await sleep(400);
}

/** Answers a GTK save dialog: types the absolute `path` into its name field (GTK's
 *  chooser reads a full path there) and presses Return. */
export async function saveAs(title, path) {
  const id = await waitForWindow(title);
  await focus(id);
  // The name field has the focus and holds the suggested name: replace it.
  await xdotool("key", "--clearmodifiers", "ctrl+a");
  await xdotool("type", "--delay", 15, path);
  await sleep(300);
  await xdotool("key", "Return");
  await waitForNoWindow(title);
}

/** Picks a file in a GTK open dialog: ctrl+L opens the location field, then the path. */
export async function openFile(title, path) {
  const id = await waitForWindow(title);
  await focus(id);
  await xdotool("key", "--clearmodifiers", "ctrl+l");
  await sleep(200);
  await xdotool("type", "--delay", 15, path);
  await sleep(300);
  await xdotool("key", "Return");
  await waitForNoWindow(title);
}

/** Closes a dialog the way Escape does: cancel, nothing chosen. */
export async function cancel(title) {
  const id = await waitForWindow(title);
  await focus(id);
  await xdotool("key", "Escape");
  await waitForNoWindow(title);
}

/** Presses a button of a GTK message dialog by the keyboard: Tab moves between its
 *  buttons, `tabs` times from the one focused when it opened, then Return. */
export async function pressButton(title, tabs = 0) {
  const id = await waitForWindow(title);
  await focus(id);
  for (let i = 0; i < tabs; i++) await xdotool("key", "Tab");
  await xdotool("key", "Return");
  await waitForNoWindow(title);
}

/** Asks window `id` to close as a window manager's close button would (WM_DELETE_WINDOW,
 *  sent by wm-close.c, which run.sh compiles to $E2E_WM_CLOSE). */
export async function requestClose(id) {
  const tool = process.env.E2E_WM_CLOSE;
  if (!tool) throw new Error("E2E_WM_CLOSE is not set: run tests/e2e/run.sh");
  await run(tool, [String(id)], { timeout: 15000 });
}

/** Saves the whole X screen, native dialogs included, when ImageMagick's `import` is
 *  installed (WebDriver's screenshots show the page only). Returns whether it did. */
export async function screenShot(file) {
  try {
    await run("import", ["-window", "root", file], { timeout: 15000 });
    return true;
  } catch {
    return false;
  }
}
