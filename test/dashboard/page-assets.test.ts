/**
 * The dashboard page's static files (web/) as the handler serves them: small (the first load at
 * most 50 KB gzip), fit for the strict Content-Security-Policy (no inline script or style, no
 * event-handler attributes, nothing loaded from elsewhere), relative URLs only (so the page works
 * at any mount path and behind a prefix-stripping proxy), and no HTML built from strings in the
 * script (untrusted data goes in as text only).
 */
import { expect } from "chai";
import { existsSync, readdirSync, readFileSync } from "fs";
import * as path from "path";
import { gzipSync } from "zlib";
import { repositoryRoot } from "../support/markdown";
import { runsOn } from "../support/targets";

runsOn("single");

/** The files under web/`folder`, by their paths relative to web/ (the scripts are ES modules, some in subfolders). */
function filesUnder(folder: string): string[] {
  return readdirSync(path.join(repositoryRoot, "web", folder), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(`${folder}${entry.name}/`) : [`${folder}${entry.name}`],
  );
}
const assets = filesUnder("").sort();
const modules = assets.filter((name) => name.endsWith(".js"));
const read = (name: string): string => readFileSync(path.join(repositoryRoot, "web", name), "utf8");

describe("Dashboard page: the static files", () => {
  const html = read("index.html");
  const scripts = modules.map((name): [string, string] => [name, read(name)]);
  const script = scripts.map(([, text]) => text).join("\n");
  const css = read("app.css");

  it("weigh at most 50 KB gzip together", () => {
    const gzipped = assets.map((name) => gzipSync(readFileSync(path.join(repositoryRoot, "web", name)), { level: 9 }).length);
    const total = gzipped.reduce((a, b) => a + b, 0);
    expect(total, `gzip bytes of ${assets.join(", ")}: ${gzipped.join(", ")}`).to.be.at.most(50 * 1024);
  });

  it("index.html has no inline script, inline style or event-handler attribute", () => {
    const scripts = [...html.matchAll(/<script\b([^>]*)>([^]*?)<\/script>/gi)];
    expect(scripts, "one script").to.have.length(1);
    for (const [, attributes, body] of scripts) {
      expect(attributes, "a script with a src").to.match(/\bsrc="[^"]+"/);
      expect(body.trim(), "an empty script element").to.equal("");
    }
    expect(html).to.not.match(/<style\b/i);
    expect(html).to.not.match(/\sstyle\s*=/i);
    expect(html).to.not.match(/\son[a-z]+\s*=/i);
    expect(html).to.not.match(/javascript:/i);
  });

  it("index.html says noindex and names the icon by a relative URL", () => {
    expect(html).to.match(/<meta name="robots" content="noindex"/);
    expect(html).to.match(/<link rel="icon" href="icon.svg"/);
  });

  it("use relative URLs only, and load nothing from another origin", () => {
    for (const [name, text] of [["index.html", html], ...scripts, ["app.css", css]]) {
      expect(text, name).to.not.match(/(?:src|href|action)\s*=\s*["']?\//i);
      expect(text, name).to.not.match(/(?:fetch|EventSource|getJSON|post|request)\(\s*["'`]\//);
      expect(text, name).to.not.match(/url\(\s*["']?(?:\/|https?:)/i);
      expect(text, name).to.not.match(/@import/i);
      // The one absolute URL allowed is the SVG namespace, which names and loads nothing.
      const urls = [...text.matchAll(/(?:https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}[^\s"'`)]*/gi)].map((match) => match[0]);
      expect(
        urls.filter((url) => url !== "http://www.w3.org/2000/svg"),
        name,
      ).to.deep.equal([]);
    }
  });

  it("the scripts build no HTML from strings, evaluate no code and set no style attribute", () => {
    for (const banned of [
      /\binnerHTML\b/,
      /\bouterHTML\b/,
      /insertAdjacentHTML/,
      /document\.write/,
      /\beval\s*\(/,
      /new Function\b/,
      /\.style\b/,
      /["']style["']/,
    ]) {
      for (const [name, text] of scripts) expect(text, `${name}: ${String(banned)}`).to.not.match(banned);
    }
  });

  it("the scripts import only modules of the page, by relative paths to files that exist", () => {
    for (const [name, text] of scripts) {
      for (const [, specifier] of text.matchAll(/^import\b[^;]*?\bfrom\s+"([^"]+)"/gms)) {
        expect(specifier, name).to.match(/^\.\.?\/[^?#]*\.js$/);
        const target = path.posix.join(path.posix.dirname(name), specifier);
        expect(target.startsWith("../"), `${name} imports ${specifier}`).to.equal(false);
        expect(existsSync(path.join(repositoryRoot, "web", target)), `${name} imports ${specifier}`).to.equal(true);
      }
    }
  });

  it("the scripts ask for the live stream and the API by relative URLs", () => {
    expect(script).to.include('new EventSource("api/stream")');
    expect(script).to.include('"api/queues"');
  });
});
