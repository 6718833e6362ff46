/**
 * The random part of a message id: 22 symbols of [A-Za-z0-9], drawn from random bytes in bulk.
 * Uniformity is checked exactly on the byte-to-symbol map (every symbol from the same number of
 * byte values), not statistically on samples.
 */
import { expect } from "chai";
import { randomIdPart, symbolOfByte } from "../../lib/operations/random-id-part";
import { runsOn } from "../support/targets";

runsOn("single");

describe("randomIdPart", () => {
  it("maps every byte value to one of the 62 symbols 4 times each, and skips the other 8", () => {
    const counts = new Map<string, number>();
    let skipped = 0;
    for (let byte = 0; byte < 256; byte++) {
      const symbol = symbolOfByte(byte);
      if (symbol === undefined) skipped += 1;
      else counts.set(symbol, (counts.get(symbol) ?? 0) + 1);
    }
    expect(skipped).to.equal(8);
    expect(counts.size).to.equal(62);
    expect([...counts.keys()].sort().join("")).to.equal("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz");
    expect(new Set(counts.values())).to.deep.equal(new Set([4]));
  });

  it("gives 22 symbols of [A-Za-z0-9], across many pool refills", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const part = randomIdPart();
      expect(part).to.match(/^[A-Za-z0-9]{22}$/);
      seen.add(part);
    }
    expect(seen.size).to.equal(2000);
  });
});
