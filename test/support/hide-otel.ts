/**
 * Preloaded into a child process (`NODE_OPTIONS=--require .../hide-otel.js`) to run it as if
 * @opentelemetry/api were not installed: resolving it fails with MODULE_NOT_FOUND, as it does in
 * an application that never installed it.
 */
import Module = require("module");

const moduleWithResolve = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
const resolve = moduleWithResolve._resolveFilename;
moduleWithResolve._resolveFilename = function (request: string, ...rest: unknown[]): string {
  if (request === "@opentelemetry/api" || request.startsWith("@opentelemetry/api/")) {
    const error = new Error(`Cannot find module '${request}'`) as NodeJS.ErrnoException;
    error.code = "MODULE_NOT_FOUND";
    throw error;
  }
  return resolve.call(this, request, ...rest);
};
