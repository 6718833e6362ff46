/**
 * The page's own files, from the package's web/ folder (found by walking up from this file, as
 * lib/scripts/script-files.ts finds lua/: dist/dashboard/http/ in the package, build/lib/... in
 * the tests). The folder is listed once; a request names a file by its exact path in that list or
 * is not an asset, so no request path reaches the disk: `..`, an absolute path, an escaped slash or
 * a symbolic link never match. Only the page's file types are listed (no dotfile, no other type).
 */
import { existsSync, readdirSync, readFileSync } from "fs";
import { dirname, join } from "path";
import type { ServerResponse } from "http";
import { HttpError } from "./http-error";

/** The content type of each kind of file the page is made of; other files in web/ are not served. */
const TYPES: Readonly<Record<string, string>> = {
  html: "text/html; charset=utf-8",
  // ES modules load only with a JavaScript MIME type (and X-Content-Type-Options: nosniff checks it).
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
};

/** A file or folder name that may be served: no leading dot, no character a URL would escape. */
const SAFE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;

/** The file the mount's root answers with. */
const ROOT_FILE = "index.html";

let webFolder: string | undefined;
let assets: ReadonlyMap<string, string> | undefined;

/** The web/ folder next to the package's package.json (undefined when it is not there). */
function findWebFolder(): string | undefined {
  if (webFolder !== undefined) return webFolder;
  for (let dir = __dirname; dirname(dir) !== dir; dir = dirname(dir)) {
    const candidate = join(dir, "web");
    if (existsSync(join(candidate, ROOT_FILE))) return (webFolder = candidate);
  }
  return undefined;
}

/** The type of `name` if it is a page file by its name, else undefined. */
function typeOf(name: string): string | undefined {
  const dot = name.lastIndexOf(".");
  if (dot <= 0 || !SAFE_NAME.test(name)) return undefined;
  const extension = name.slice(dot + 1);
  return Object.prototype.hasOwnProperty.call(TYPES, extension) ? TYPES[extension] : undefined;
}

/** Adds the page files under `folder` (`prefix` names it relative to web/), subfolders included. */
function listFolder(folder: string, prefix: string, into: Map<string, string>): void {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    // A Dirent of a symbolic link is neither a file nor a folder: links are never followed.
    if (entry.isDirectory() && SAFE_NAME.test(entry.name)) {
      listFolder(join(folder, entry.name), `${prefix}${entry.name}/`, into);
    } else if (entry.isFile()) {
      const type = typeOf(entry.name);
      if (type !== undefined) into.set(`${prefix}${entry.name}`, type);
    }
  }
}

/** Every path (relative to the mount) that names a page file, with its content type. */
function listAssets(): ReadonlyMap<string, string> {
  if (assets !== undefined) return assets;
  const found = new Map<string, string>();
  const folder = findWebFolder();
  if (folder !== undefined) listFolder(folder, "", found);
  // The root is the page even when web/ is missing, so that sendAsset can say what is wrong.
  found.set("", TYPES.html);
  found.set(ROOT_FILE, TYPES.html);
  return (assets = found);
}

/** Whether `path` (relative to the mount, no leading slash) names one of the page's files. */
export function isAsset(path: string): boolean {
  return listAssets().has(path);
}

/** Sends one of the page's files. The page changes only with the package: revalidated, never stale. */
export function sendAsset(res: ServerResponse, path: string, headOnly = false): void {
  const type = listAssets().get(path);
  const folder = findWebFolder();
  if (folder === undefined || type === undefined) {
    throw new HttpError(500, "pageMissing", "The dashboard's page files (web/) are not in the package: reinstall rsmq-next.");
  }
  const content = readFileSync(join(folder, path === "" ? ROOT_FILE : path));
  res.writeHead(200, {
    "Content-Type": type,
    "Content-Length": String(content.length),
    "Cache-Control": "no-cache",
  });
  res.end(headOnly ? undefined : content);
}
