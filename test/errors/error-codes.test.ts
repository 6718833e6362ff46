/**
 * The `code` of the package's named errors (no Redis): one per name and per wrong form, all
 * distinct, set by every builder, and not enumerable, so an error serializes, spreads and prints
 * as it did before it had one (docs/api.md, "Errors").
 */
import { expect } from "chai";
import { inspect } from "util";
import { ERROR_CODES, INVALID_FORMAT_CODES, rsmqError } from "../../lib/errors/rsmq-errors";
import { validateId, validateQname } from "../../lib/operations/rsmq-input-rules";
import { runsOn } from "../support/targets";

runsOn("single");

/** The error `run` throws. */
function thrown(run: () => unknown): Error & { code?: unknown } {
  try {
    run();
  } catch (error) {
    return error as Error & { code?: unknown };
  }
  throw new Error("nothing was thrown");
}

describe("error codes", () => {
  it("are distinct, ERR_RSMQ_NEXT_ and upper case", () => {
    const codes = [...Object.values(ERROR_CODES), ...Object.values(INVALID_FORMAT_CODES)];
    expect(new Set(codes).size).to.equal(codes.length);
    for (const code of codes) expect(code).to.match(/^ERR_RSMQ_NEXT_[A-Z_]+$/);
  });

  it("each name's code is on the errors it builds, with name and message as before", () => {
    const error = rsmqError("queueNotFound", "Queue not found") as Error & { code?: unknown };
    expect([error.name, error.message, error.code]).to.deep.equal(["queueNotFound", "Queue not found", "ERR_RSMQ_NEXT_QUEUE_NOT_FOUND"]);
    expect(error).to.be.an.instanceOf(Error);
  });

  it("invalidFormat says what had the wrong form", () => {
    expect(thrown(() => validateQname("no spaces")).code).to.equal("ERR_RSMQ_NEXT_INVALID_QNAME");
    expect(thrown(() => validateQname("bad to", "to")).code).to.equal("ERR_RSMQ_NEXT_INVALID_QNAME");
    expect(thrown(() => validateQname("QUEUES")).code).to.equal("ERR_RSMQ_NEXT_RESERVED_QNAME");
    expect(thrown(() => validateId("short")).code).to.equal("ERR_RSMQ_NEXT_INVALID_ID");
    expect(thrown(() => validateId(undefined)).code).to.equal("ERR_RSMQ_NEXT_MISSING_PARAMETER");
  });

  it("is not enumerable: JSON, Object.keys, a spread and inspect show the error as without it", () => {
    const withCode = rsmqError("queueExists", "Queue exists");
    // Built as rsmq 0.12.4's _handleError builds its errors: name and message set after `new Error()`.
    const without = new Error();
    without.name = "queueExists";
    without.message = "Queue exists";
    without.stack = withCode.stack;
    expect(JSON.stringify(withCode)).to.equal(JSON.stringify(without));
    expect(Object.keys(withCode)).to.deep.equal(Object.keys(without));
    expect({ ...withCode }).to.deep.equal({ ...without });
    expect(inspect(withCode)).to.equal(inspect(without));
  });
});
