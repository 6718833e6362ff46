/**
 * The browser harness (test/support/browser.ts) against a real Chromium, not the dashboard: tiny
 * pages served here under a strict Content Security Policy, each with one thing wrong, and the
 * harness must report it; a clean page it must not report at all.
 */
import { expect } from "chai";
import { createServer } from "http";
import type { Server } from "http";
import type { AddressInfo } from "net";
import { ChromiumNotStarted, closeBrowser, launchBrowser, openPage, startChromium } from "../support/browser";
import type { OpenedPage } from "../support/browser";
import { waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single");

const STRICT_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Another origin than the pages': nothing listens there, and the harness must notice the attempt. */
const FOREIGN_IMAGE = "http://127.0.0.2:9/x.png";

const page = (body: string): string =>
  `<!doctype html><html><head><meta charset="utf-8"><title>t</title><link rel="stylesheet" href="/app.css"></head><body>${body}</body></html>`;

const ROUTES: Record<string, { type: string; body: string }> = {
  "/clean": { type: "text/html", body: page('<p id="out">loading</p><script src="/clean.js"></script>') },
  "/clean.js": { type: "text/javascript", body: 'document.getElementById("out").textContent = "ready";' },
  "/app.css": { type: "text/css", body: "body { font-family: sans-serif; }" },
  "/console-error": { type: "text/html", body: page('<script src="/console-error.js"></script>') },
  "/console-error.js": {
    type: "text/javascript",
    body: 'console.warn("careful"); console.error("the dashboard broke"); throw new Error("not caught");',
  },
  "/inline-script": { type: "text/html", body: page('<script>document.title = "ran";</script>') },
  "/foreign": { type: "text/html", body: page(`<img alt="" src="${FOREIGN_IMAGE}">`) },
};

describe("browser harness (Chromium through playwright-core)", function () {
  // The first launch on a loaded machine; each test below is bounded by the harness's own timeouts.
  this.timeout(45_000);
  let server: Server;
  let base: string;
  const opened: OpenedPage[] = [];

  before(async () => {
    server = createServer((request, response) => {
      const route = ROUTES[request.url ?? ""];
      // Chromium asks for /favicon.ico: an empty answer, not a 404 (which is a console error).
      if (!route) return void response.writeHead(request.url === "/favicon.ico" ? 204 : 404).end();
      response.writeHead(200, { "content-type": `${route.type}; charset=utf-8`, "content-security-policy": STRICT_CSP }).end(route.body);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await launchBrowser();
  });
  afterEach(async () => {
    for (const one of opened.splice(0)) await one.close();
  });
  after(async () => {
    await closeBrowser();
    await new Promise((resolve) => server.close(resolve));
  });

  const open = async (path: string): Promise<OpenedPage> => {
    const one = await openPage(base + path);
    opened.push(one);
    return one;
  };

  it("reports nothing for a clean page: same-origin script and style under a strict CSP", async () => {
    const clean = await open("/clean");
    await waitFor(async () => (await clean.page.textContent("#out")) === "ready", "the page's script to run");
    await clean.settle();
    expect(clean.problems()).to.deep.equal([]);
    expect(clean.cspViolations()).to.deep.equal([]);
    expect(clean.foreignRequests()).to.deep.equal([]);
  });

  it("reports console.error and console.warn, and an uncaught exception", async () => {
    const broken = await open("/console-error");
    await waitFor(() => broken.problems().length >= 3, "three problems");
    await broken.settle();
    expect(broken.problems()).to.deep.equal([
      `console.warning: careful (${base}/console-error.js:0)`,
      `console.error: the dashboard broke (${base}/console-error.js:0)`,
      "pageerror: not caught",
    ]);
    expect(broken.foreignRequests()).to.deep.equal([]);
  });

  it("reports an inline script the CSP blocks: the violation event and Chromium's console error", async () => {
    const inline = await open("/inline-script");
    await waitFor(() => inline.cspViolations().length > 0, "the CSP violation");
    await inline.settle();
    expect(inline.cspViolations()).to.deep.equal([{ directive: "script-src-elem", blocked: "inline", where: `${base}/inline-script:1` }]);
    const problems = inline.problems();
    expect(problems).to.have.length(2);
    expect(problems).to.include(`csp: script-src-elem blocked inline (${base}/inline-script:1)`);
    expect(problems.find((line) => line.startsWith("console.error:"))).to.include("Content Security Policy");
    // Not run: the page's title is still its own.
    expect(await inline.page.title()).to.equal("t");
  });

  it("reports a request to another origin, even one the CSP blocks", async () => {
    const foreign = await open("/foreign");
    await waitFor(
      () => foreign.foreignRequests().length > 0 && foreign.cspViolations().length > 0,
      "the foreign request and its violation",
    );
    await foreign.settle();
    expect(foreign.foreignRequests()).to.deep.equal([FOREIGN_IMAGE]);
    expect(foreign.cspViolations()).to.deep.equal([{ directive: "img-src", blocked: FOREIGN_IMAGE, where: `${base}/foreign:1` }]);
  });

  it("a Chromium that is missing or does not start: ChromiumNotStarted, saying what to install or set", async () => {
    for (const executable of ["/nonexistent/chromium", "/bin/false"]) {
      const error = await startChromium(executable).then(
        () => undefined,
        (failure: Error) => failure,
      );
      expect(error, executable).to.be.instanceOf(ChromiumNotStarted);
      expect(error?.message).to.include(`chromium (${executable}) did not start`);
      expect(error?.message).to.include("apt-get install chromium");
      expect(error?.message).to.include("CHROMIUM_PATH");
    }
  });
});
