/**
 * A real browser for the dashboard's tests: Debian's chromium, headless, driven by playwright-core
 * (which downloads no browser of its own). One browser per test process, launched on first use;
 * each opened page gets a context of its own (no cookies or storage shared between tests) and
 * records what a person with the developer tools open would see go wrong:
 *
 * - console messages of type error or warning (a failed request shows up here too, as Chromium's
 *   "Failed to load resource", and so does each Content Security Policy violation);
 * - uncaught exceptions (`pageerror`) and a crashed page;
 * - Content Security Policy violations, from the page's `securitypolicyviolation` events: a
 *   playwright init script is not subject to the page's CSP, and reports them through a binding;
 * - requests (and WebSockets) to any other origin than the page's, made or only attempted (a
 *   request the CSP blocks still counts: the page tried).
 *
 * Chromium asks every page's origin for /favicon.ico: a server answering 404 there shows up as a
 * console error, as it would in a person's browser.
 */
import { expect } from "chai";
import { existsSync } from "fs";
import { chromium } from "playwright-core";
import type { Browser, Page } from "playwright-core";

/** Where chromium is: CHROMIUM_PATH, else Debian's package. */
export function chromiumPath(): string {
  return process.env.CHROMIUM_PATH || "/usr/bin/chromium";
}

/**
 * Required on the test machines: without them Chromium's own connections (and so the page's) get
 * refused, and it phones home for updates, sync and field trials.
 */
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const LAUNCH_TIMEOUT_MS = 30_000;
/** Navigation, and every action and wait on a page unless a test says otherwise. */
const PAGE_TIMEOUT_MS = 10_000;
const CLOSE_TIMEOUT_MS = 10_000;

/** Chromium did not start: not installed, not executable, or too slow. */
export class ChromiumNotStarted extends Error {
  override name = "ChromiumNotStarted";
}

/** A harness step that took longer than its bound. */
export class BrowserTimeout extends Error {
  override name = "BrowserTimeout";
}

/** One Content Security Policy violation, as the page's `securitypolicyviolation` event tells it. */
export interface CspViolation {
  /** The directive that blocked it, e.g. `script-src-elem`. */
  directive: string;
  /** What was blocked: a URL, or `inline`, `eval`. */
  blocked: string;
  /** The document or script where it happened, with its line when known. */
  where: string;
}

export interface OpenedPage {
  page: Page;
  /** Everything that went wrong so far, one line each, prefixed by its kind (`console.error:`, `pageerror:`, `csp:` ...). */
  problems(): string[];
  /** The CSP violations so far (also among problems). */
  cspViolations(): CspViolation[];
  /** The URLs of requests and WebSockets so far to another origin than the page's. */
  foreignRequests(): string[];
  /**
   * Resolves once what the page did so far has been reported here: a task later in the page, then
   * a round trip (CDP keeps order, so earlier console messages and bindings arrive first).
   */
  settle(): Promise<void>;
  close(): Promise<void>;
}

let launching: Promise<Browser> | undefined;

/** Rejects with `make(ms)` when `promise` takes longer than `ms`. */
async function within<T>(promise: Promise<T>, ms: number, make: (ms: number) => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(make(ms)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function notStarted(executablePath: string, why: string): ChromiumNotStarted {
  return new ChromiumNotStarted(
    `chromium (${executablePath}) did not start: ${why}. Install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH to a Chromium executable.`,
  );
}

/** A new headless Chromium; launchBrowser shares one, this is for a test of the launch itself. */
export async function startChromium(executablePath = chromiumPath()): Promise<Browser> {
  if (!existsSync(executablePath)) throw notStarted(executablePath, "no such file");
  try {
    // playwright's own launch: a fresh temporary profile (user-data dir), removed on close.
    return await within(
      chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS, timeout: LAUNCH_TIMEOUT_MS }),
      LAUNCH_TIMEOUT_MS + 1_000,
      (ms) => notStarted(executablePath, `not within ${ms} ms`),
    );
  } catch (error) {
    if (error instanceof ChromiumNotStarted) throw error;
    throw notStarted(executablePath, (error as Error).message.split("\n")[0]);
  }
}

/** The test process's browser, launched on first use (call it in a `before` hook to keep launch time out of a test). */
export function launchBrowser(): Promise<Browser> {
  launching ??= startChromium().catch((error: unknown) => {
    launching = undefined; // the next call tries again
    throw error;
  });
  return launching;
}

/** Closes the browser, if one was launched. */
export async function closeBrowser(): Promise<void> {
  const browser = launching;
  launching = undefined;
  if (!browser) return;
  const opened = await browser.catch(() => undefined);
  if (opened) await within(opened.close(), CLOSE_TIMEOUT_MS, (ms) => new BrowserTimeout(`chromium did not close within ${ms} ms`));
}

/** The origin to compare a request's with: ws: and wss: count as http: and https:. */
function originOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === "ws:") parsed.protocol = "http:";
    if (parsed.protocol === "wss:") parsed.protocol = "https:";
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

const CSP_BINDING = "__rsmqNextTestCspViolation";

/**
 * In every frame, before the page's own scripts: each CSP violation to the harness. A string (the
 * tests compile without the DOM's types); init scripts run whatever the page's CSP says.
 */
const REPORT_CSP_VIOLATIONS = `document.addEventListener("securitypolicyviolation", (event) => {
  window[${JSON.stringify(CSP_BINDING)}]({
    directive: event.effectiveDirective || event.violatedDirective,
    blocked: event.blockedURI,
    where: event.sourceFile ? event.sourceFile + ":" + event.lineNumber : event.documentURI,
  });
});`;

/** Opens `url` in a fresh context of the browser and resolves once it has loaded, recording as it goes. */
export async function openPage(url: string): Promise<OpenedPage> {
  const origin = originOf(url);
  if (!origin) throw new Error(`openPage: ${url} is not an http(s) URL`);
  const browser = await launchBrowser();
  const context = await within(browser.newContext(), PAGE_TIMEOUT_MS, (ms) => new BrowserTimeout(`no new browser context within ${ms} ms`));
  context.setDefaultTimeout(PAGE_TIMEOUT_MS);
  context.setDefaultNavigationTimeout(PAGE_TIMEOUT_MS);
  const problems: string[] = [];
  const violations: CspViolation[] = [];
  const foreign: string[] = [];
  const noteIfForeign = (requested: string): void => {
    const requestedOrigin = originOf(requested);
    if (requestedOrigin && requestedOrigin !== origin) foreign.push(requested);
  };
  try {
    await context.exposeBinding(CSP_BINDING, (_source, violation: CspViolation) => {
      violations.push(violation);
      problems.push(`csp: ${violation.directive} blocked ${violation.blocked} (${violation.where})`);
    });
    await context.addInitScript(REPORT_CSP_VIOLATIONS);
    const page = await context.newPage();
    page.on("console", (message) => {
      const type = message.type();
      if (type !== "error" && type !== "warning") return;
      const { url: at, lineNumber } = message.location();
      problems.push(`console.${type}: ${message.text()}${at ? ` (${at}:${lineNumber})` : ""}`);
    });
    page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
    page.on("crash", () => problems.push("crash: the page crashed"));
    page.on("request", (request) => noteIfForeign(request.url()));
    page.on("websocket", (socket) => noteIfForeign(socket.url()));
    await page.goto(url, { waitUntil: "load" });
    return {
      page,
      problems: () => [...problems],
      cspViolations: () => [...violations],
      foreignRequests: () => [...foreign],
      settle: async () => {
        await page.evaluate(() => new Promise<void>((resolve) => setTimeout(resolve, 0)));
      },
      close: () => within(context.close(), CLOSE_TIMEOUT_MS, (ms) => new BrowserTimeout(`the page did not close within ${ms} ms`)),
    };
  } catch (error) {
    await context.close().catch(() => undefined);
    throw error;
  }
}

/**
 * Closes a test's page once it settled, then fails the test on what the page met: console errors,
 * page errors, CSP violations, or requests off the page's origin.
 */
export async function closeCheckedPage(page: OpenedPage | undefined): Promise<void> {
  if (!page) return;
  await page.settle();
  const problems = page.problems();
  const foreign = page.foreignRequests();
  await page.close();
  expect(problems, "console errors, page errors and CSP violations").to.deep.equal([]);
  expect(foreign, "requests off the page's origin").to.deep.equal([]);
}
