/**
 * Preloaded into a child process (`NODE_OPTIONS=--require .../hide-ioredis.js`) to run it as if
 * ioredis were not installed: resolving "ioredis" fails with MODULE_NOT_FOUND, as it does in an
 * application that never installed it.
 */
import Module = require("module");

const moduleWithResolve = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
const resolve = moduleWithResolve._resolveFilename;
moduleWithResolve._resolveFilename = function (request: string, ...rest: unknown[]): string {
  if (request === "ioredis" || request.startsWith("ioredis/")) {
    const error = new Error(`Cannot find module '${request}'`) as NodeJS.ErrnoException;
    error.code = "MODULE_NOT_FOUND";
    throw error;
  }
  return resolve.call(this, request, ...rest);
};
