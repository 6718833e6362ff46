/**
 * Which paths the dashboard serves from web/: every page file by its exact path (the ES modules in
 * subfolders included, with a JavaScript type), and nothing else of the disk, whatever the path
 * says (`..`, escaped dots and slashes, absolute paths, files of other types).
 */
import { expect } from "chai";
import { readdirSync, readFileSync } from "fs";
import { request } from "http";
import type { ServerResponse } from "http";
import * as path from "path";
import RedisSMQ = require("../../lib/index");
import { createDashboard } from "../../lib/dashboard";
import type { DashboardHandler } from "../../lib/dashboard";
import { isAsset, sendAsset } from "../../lib/dashboard/http/static-assets";
import { repositoryRoot } from "../support/markdown";
import { nodeHttpAtRoot } from "../support/dashboard";
import type { Mounted } from "../support/dashboard";
import { connectionOptions, uniqueNs } from "../support/server";
import { runsOn } from "../support/targets";

runsOn("single");

const web = path.join(repositoryRoot, "web");

/** The scripts under web/`folder`, by their paths relative to web/. */
function scriptsUnder(folder: string): string[] {
  return readdirSync(path.join(web, folder), { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) return scriptsUnder(`${folder}${entry.name}/`);
    return entry.name.endsWith(".js") ? [`${folder}${entry.name}`] : [];
  });
}

/** Paths that try to leave web/ or name something that is not a page file. */
const OUTSIDE = [
  "../package.json",
  "..",
  "queue/../../package.json",
  "queue/../app.js",
  "./app.js",
  "/app.js",
  "queue//view.js",
  "%2e%2e/package.json",
  "queue/..%2f..%2fpackage.json",
  "queue%2fview.js",
  "app.js/",
  "app.js%00.html",
  "web/app.js",
  "package.json",
  "lib/dashboard/index.ts",
  "dist/index.js",
  "queue",
  "queue/",
  "api/queues",
];

describe("Dashboard page: which files are served", () => {
  it("the root, and every file of the page by its path, nested modules included", () => {
    const scripts = scriptsUnder("");
    expect(scripts, "a module in a subfolder").to.satisfy((names: string[]) => names.some((name) => name.includes("/")));
    for (const name of ["", "index.html", "app.css", "icon.svg", ...scripts]) expect(isAsset(name), name).to.equal(true);
  });

  it("nothing outside web/, nothing by another spelling of a path, no other kind of file", () => {
    for (const name of OUTSIDE) expect(isAsset(name), name).to.equal(false);
  });

  it("a module is sent whole, as JavaScript, revalidated on every load", () => {
    const name = scriptsUnder("").find((script) => script.includes("/"))!;
    const sent: { headers?: Record<string, string>; body?: Buffer } = {};
    const res = {
      writeHead: (status: number, headers: Record<string, string>) => Object.assign(sent, { status, headers }),
      end: (body: Buffer) => Object.assign(sent, { body }),
    } as unknown as ServerResponse;
    sendAsset(res, name);
    expect(sent).to.include({ status: 200 });
    expect(sent.headers).to.include({ "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "no-cache" });
    expect(sent.body!.equals(readFileSync(path.join(web, name))), name).to.equal(true);
  });

  describe("over HTTP, the request's path as sent", () => {
    let rsmq: RedisSMQ;
    let handler: DashboardHandler;
    let mounted: Mounted;
    before(async () => {
      rsmq = new RedisSMQ(connectionOptions(uniqueNs("dash-assets")));
      handler = createDashboard({ rsmq });
      mounted = await nodeHttpAtRoot(handler);
    });
    after(async () => {
      handler.close();
      await mounted.close();
      await rsmq.quitAsync();
    });

    /** GETs `rawPath` exactly as written (a URL object would resolve its dot segments first). */
    const get = (rawPath: string): Promise<{ status: number; type: string; body: string }> =>
      new Promise((resolve, reject) => {
        const { hostname, port } = new URL(mounted.base);
        request({ hostname, port, path: rawPath }, (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => (body += chunk));
          res.on("end", () => resolve({ status: res.statusCode!, type: String(res.headers["content-type"]), body }));
        })
          .on("error", reject)
          .end();
      });

    it("a nested module: 200, as JavaScript", async () => {
      const name = scriptsUnder("").find((script) => script.includes("/"))!;
      const answer = await get(`/${name}`);
      expect([answer.status, answer.type]).to.deep.equal([200, "text/javascript; charset=utf-8"]);
      expect(answer.body).to.equal(readFileSync(path.join(web, name), "utf8"));
    });

    it("a path out of web/ is answered 404 and sends no file", async () => {
      const packageJson = readFileSync(path.join(repositoryRoot, "package.json"), "utf8");
      for (const rawPath of [
        "/../package.json",
        "/queue/../../package.json",
        "/%2e%2e/package.json",
        "/queue/..%2f..%2fpackage.json",
        "/..%5cpackage.json",
      ]) {
        const answer = await get(rawPath);
        expect(answer.status, rawPath).to.equal(404);
        expect(answer.body, rawPath).to.not.equal(packageJson);
        expect(JSON.parse(answer.body), rawPath).to.include({ error: "notFound" });
      }
    });
  });
});
