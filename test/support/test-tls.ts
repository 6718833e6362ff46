/**
 * A throwaway certificate authority for TLS tests: a CA and one certificate for 127.0.0.1 signed by
 * it, made with the `openssl` command line, so a test can start redis-server with TLS and have a
 * client check the server's certificate against the CA, as a real deployment would.
 */
import { spawnSync } from "child_process";
import { readFileSync, writeFileSync } from "fs";
import { join } from "path";

/** A CA and a certificate for 127.0.0.1 (used by the servers for clients and for each other). */
export interface TestCertificates {
  /** The CA certificate, PEM: what a client passes as `socket.ca`. */
  readonly ca: string;
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
}

let unavailableReason: string | undefined | null = null;

/** Why this machine cannot run TLS tests (no openssl, or a redis-server built without TLS), or undefined. */
export function tlsUnavailableReason(): string | undefined {
  if (unavailableReason === null) unavailableReason = findUnavailableReason();
  return unavailableReason;
}

function findUnavailableReason(): string | undefined {
  const openssl = spawnSync("openssl", ["version"], { encoding: "utf8" });
  if (openssl.error || openssl.status !== 0) return "openssl is not on PATH (it makes the test certificates)";
  // A redis-server built with TLS checks its TLS settings at start and exits at once when they are
  // incomplete (no certificate here); one built without TLS never says so.
  const probe = spawnSync("redis-server", ["--port", "0", "--tls-port", "1", "--save", ""], { encoding: "utf8", timeout: 3_000 });
  if (!`${probe.stdout}${probe.stderr}`.includes("Failed to configure TLS")) {
    return "redis-server was built without TLS (BUILD_TLS=yes)";
  }
  return undefined;
}

/** Makes a CA and a certificate for 127.0.0.1 in `dir` (which must exist); needs openssl (see tlsUnavailableReason). */
export function makeTestCertificates(dir: string): TestCertificates {
  const caFile = join(dir, "ca.crt");
  const caKey = join(dir, "ca.key");
  const certFile = join(dir, "server.crt");
  const keyFile = join(dir, "server.key");
  const request = join(dir, "server.csr");
  const extensions = join(dir, "server.ext");
  // node's TLS checks the address against the subjectAltName, not the CN.
  writeFileSync(extensions, "subjectAltName=IP:127.0.0.1\n");
  openssl([
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    caKey,
    "-out",
    caFile,
    "-days",
    "2",
    "-subj",
    "/CN=rsmq-next test CA",
  ]);
  openssl(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", keyFile, "-out", request, "-subj", "/CN=127.0.0.1"]);
  openssl([
    "x509",
    "-req",
    "-in",
    request,
    "-CA",
    caFile,
    "-CAkey",
    caKey,
    "-CAcreateserial",
    "-out",
    certFile,
    "-days",
    "2",
    "-extfile",
    extensions,
  ]);
  return { ca: readFileSync(caFile, "utf8"), caFile, certFile, keyFile };
}

function openssl(args: string[]): void {
  const result = spawnSync("openssl", args, { encoding: "utf8", timeout: 30_000 });
  if (result.error || result.status !== 0) {
    throw new Error(`openssl ${args[0]} failed (${result.error?.message ?? result.status}): ${result.stderr}`);
  }
}
