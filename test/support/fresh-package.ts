/**
 * The package as a new user gets it: the committed HEAD cloned afresh, packed there by `npm pack`
 * (which runs `prepack`, so dist/ is built in the clone from the sources alone), and the tarball
 * installed into a new, empty app. Each step runs the real tool with a bound, and a failure names
 * the step and prints what the tool printed.
 */
import { execFile } from "child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "fs";
import * as path from "path";

export interface Run {
  stdout: string;
  stderr: string;
}

/** Runs a command to the end; rejects, naming `step`, on a non-zero exit or after `timeoutMs`. */
export function run(
  step: string,
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { cwd: options.cwd, env: options.env ?? process.env, timeout: options.timeoutMs, killSignal: "SIGKILL", maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (!error) return resolve({ stdout, stderr });
        const how = error.killed ? `was killed after ${options.timeoutMs} ms` : `failed (exit ${String(error.code)})`;
        reject(new Error(`${step}: \`${command} ${args.join(" ")}\` in ${options.cwd} ${how}\n${stdout}\n${stderr}`));
      },
    );
  });
}

/** The commit a checkout is at; a checkout that is not a git repository cannot be cloned afresh. */
export async function headCommit(checkout: string): Promise<string> {
  const { stdout } = await run(
    "read HEAD (the packaging test packs a fresh clone of the committed HEAD: run it in a git checkout)",
    "git",
    ["rev-parse", "HEAD"],
    {
      cwd: checkout,
      timeoutMs: 10_000,
    },
  );
  return stdout.trim();
}

/** Clones `checkout` into `dir` and checks out `commit` there: committed files only, as a user's clone has. */
export async function cloneAt(checkout: string, commit: string, dir: string): Promise<void> {
  await run("clone", "git", ["clone", "--quiet", "--no-checkout", checkout, dir], { cwd: path.dirname(dir), timeoutMs: 60_000 });
  await run("check out HEAD", "git", ["checkout", "--quiet", "--detach", commit], { cwd: dir, timeoutMs: 60_000 });
}

/**
 * Gives the clone the dependencies its `prepack` needs. When the clone's package-lock.json is the
 * checkout's, the checkout's node_modules is what `npm ci` would install there (npm ci installs
 * exactly the lock), so it is linked instead of installed a second time (a minute or two of
 * download and unpack); otherwise the clone gets its own `npm ci`. Returns which was done.
 */
export async function provideDependencies(checkout: string, clone: string): Promise<"linked" | "installed"> {
  const lock = (dir: string): string => readFileSync(path.join(dir, "package-lock.json"), "utf8");
  const modules = path.join(checkout, "node_modules");
  if (existsSync(modules) && lock(checkout) === lock(clone)) {
    symlinkSync(modules, path.join(clone, "node_modules"), "dir");
    return "linked";
  }
  await run(
    "npm ci in the clone (its package-lock.json differs from the checkout's)",
    "npm",
    ["ci", "--prefer-offline", "--no-audit", "--no-fund"],
    {
      cwd: clone,
      timeoutMs: 300_000,
    },
  );
  return "installed";
}

export interface Packed {
  /** Absolute path of the .tgz. */
  tarball: string;
  /** Every path in the tarball, relative to the package root. */
  files: string[];
}

/** `npm pack` in `dir` (running its `prepack`), the tarball written to `destination`. */
export async function pack(dir: string, destination: string): Promise<Packed> {
  const { stdout } = await run("npm pack", "npm", ["pack", "--json", "--pack-destination", destination], { cwd: dir, timeoutMs: 180_000 });
  // Lifecycle output goes to stderr; stdout is the JSON report alone.
  const [report] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  return { tarball: path.join(destination, report.filename), files: report.files.map((file) => file.path) };
}

/**
 * A new app in `dir` with nothing but `npm install <tarball>` done, from npm's cache where it can;
 * resolves what npm printed.
 */
export function installIntoNewApp(tarball: string, dir: string): Promise<Run> {
  mkdirSync(dir);
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "fresh-app", version: "1.0.0", private: true }, null, 2));
  return run("npm install of the tarball in a new app", "npm", ["install", tarball, "--prefer-offline", "--no-audit", "--no-fund"], {
    cwd: dir,
    timeoutMs: 180_000,
  });
}
