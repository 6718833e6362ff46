/**
 * The page's own files, from the package's web/ folder (found by walking up from this file, as
 * lib/scripts/script-files.ts finds lua/: dist/dashboard/http/ in the package, build/lib/... in
 * the tests). Only the files listed here are served; nothing else of the disk is reachable.
 */
import { existsSync, readFileSync } from "fs";
import { dirname, join } from "path";
import type { ServerResponse } from "http";
import { HttpError } from "./http-error";

/** Every file the page is made of, by its path relative to the mount, with its type. */
export const ASSETS: Readonly<Record<string, { file: string; type: string }>> = {
  "": { file: "index.html", type: "text/html; charset=utf-8" },
  "index.html": { file: "index.html", type: "text/html; charset=utf-8" },
  "app.js": { file: "app.js", type: "text/javascript; charset=utf-8" },
  "app.css": { file: "app.css", type: "text/css; charset=utf-8" },
  "icon.svg": { file: "icon.svg", type: "image/svg+xml" },
};

let webFolder: string | undefined;

/** The web/ folder next to the package's package.json (undefined when it is not there). */
function findWebFolder(): string | undefined {
  if (webFolder !== undefined) return webFolder;
  for (let dir = __dirname; dirname(dir) !== dir; dir = dirname(dir)) {
    const candidate = join(dir, "web");
    if (existsSync(join(candidate, "index.html"))) return (webFolder = candidate);
  }
  return undefined;
}

/** Whether `path` (relative to the mount, no leading slash) names one of the page's files. */
export function isAsset(path: string): boolean {
  return Object.prototype.hasOwnProperty.call(ASSETS, path);
}

/** Sends one of the page's files. The page changes only with the package: revalidated, never stale. */
export function sendAsset(res: ServerResponse, path: string, headOnly = false): void {
  const asset = ASSETS[path];
  const folder = findWebFolder();
  if (folder === undefined) {
    throw new HttpError(500, "pageMissing", "The dashboard's page files (web/) are not in the package: reinstall rsmq-next.");
  }
  const content = readFileSync(join(folder, asset.file));
  res.writeHead(200, {
    "Content-Type": asset.type,
    "Content-Length": String(content.length),
    "Cache-Control": "no-cache",
  });
  res.end(headOnly ? undefined : content);
}
