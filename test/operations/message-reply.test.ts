/**
 * Reading a message's fields from a script's reply, without Redis: the send time an id starts with
 * (rsmq 0.12.4's `sent`), rsmq's message shape, the `<id>:dl` JSON of a dead letter, and the
 * schedule in a message's attributes `<id>:at`.
 */
import { expect } from "chai";
import { parseWhy, scheduleOf, sentAt, toQueueMessage } from "../../lib/operations/message-reply";
import { runsOn } from "../support/targets";

runsOn("single");

/** An id as lua/sendMessage-2.lua builds it: the microsecond time in base36, then 22 random symbols. */
function idSentAt(microseconds: number): string {
  return `${microseconds.toString(36)}${"A".repeat(22)}`;
}

describe("message fields in a script's reply", () => {
  it("reads the send time from an id's first 10 characters, in ms with the microseconds as a fraction", () => {
    // 2026-12-01T22:00:00.123456Z
    const microseconds = Date.UTC(2026, 11, 1, 22, 0, 0, 123) * 1000 + 456;
    const id = idSentAt(microseconds);
    expect(id).to.have.length(32);
    expect(sentAt(id)).to.equal(microseconds / 1000);
    expect(Math.floor(sentAt(id))).to.equal(Date.UTC(2026, 11, 1, 22, 0, 0, 123));
    // The random part plays no role.
    expect(sentAt(`${id.slice(0, 10)}${"z".repeat(22)}`)).to.equal(sentAt(id));
  });

  it("gives received messages the same `sent` as peeks: one parse for both", () => {
    const id = idSentAt(1_764_626_400_123_456);
    expect(toQueueMessage(id, "body", "2", "1764626400200")).to.deep.equal({
      id,
      message: "body",
      rc: 2,
      fr: 1764626400200,
      sent: sentAt(id),
    });
  });

  it("reads why a dead letter stopped, and nothing from an absent or broken record", () => {
    const why = { source: "jobs", deliveries: 3, reason: "exhausted", error: "boom", at: 1764626400000 };
    expect(parseWhy(JSON.stringify(why))).to.deep.equal(why);
    expect(parseWhy(null)).to.equal(undefined);
    expect(parseWhy("{not json")).to.equal(undefined);
  });

  it("reads the schedule and slot from a message's attributes; anything else is no schedule", () => {
    expect(scheduleOf(JSON.stringify({ schedule: "nightly", slot: 1_764_626_400_000 }))).to.deep.equal({
      name: "nightly",
      slot: 1_764_626_400_000,
    });
    for (const text of [
      null,
      undefined,
      false,
      "",
      "{not json",
      "null",
      "[]",
      "42",
      '{"schedule":"s"}',
      '{"slot":1}',
      '{"schedule":1,"slot":1}',
      '{"schedule":"s","slot":"1"}',
    ]) {
      expect(scheduleOf(text), String(text)).to.equal(undefined);
    }
  });
});
