/**
 * peekMessage: one message by its id, as peekMessages gives it (state, due time, receive count,
 * dead-letter record), in one read-only script call; `{}` for an id the queue does not hold, and
 * `queueNotFound` for a missing queue. Bad input is refused before any command.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib");
import { connectionOptions, uniqueNs } from "../support/server";
import { clientCommands, monitor } from "../support/wire";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

/** An id of the right form that no message of this run has. */
const NEVER = "aaaaaaaaaa" + "b".repeat(22);

describe("peekMessage", () => {
  let rsmq: RedisSMQ;

  beforeEach(async () => {
    rsmq = new RedisSMQ(connectionOptions(uniqueNs("peek1")));
    await rsmq.createQueueAsync({ qname: "q" });
  });
  afterEach(() => rsmq.quitAsync());

  it("gives the message as peekMessages does, in each of its states", async () => {
    const first = await rsmq.sendMessageAsync({ qname: "q", message: "first" });
    const later = await rsmq.sendMessageAsync({ qname: "q", message: "later", delay: 60 });
    const [listed] = await rsmq.peekMessagesAsync({ qname: "q", count: 1 });
    expect(await rsmq.peekMessageAsync({ qname: "q", id: first })).to.deep.equal(listed);
    expect(listed).to.include({ id: first, message: "first", state: "visible", receiveCount: 0 });
    expect(await rsmq.peekMessageAsync({ qname: "q", id: later })).to.include({ id: later, state: "delayed", receiveCount: 0 });

    await rsmq.receiveMessageAsync({ qname: "q", vt: 60 });
    expect(await rsmq.peekMessageAsync({ qname: "q", id: first })).to.include({ id: first, state: "inFlight", receiveCount: 1 });
  });

  it("resolves {} for an id the queue does not hold, also once the message is deleted", async () => {
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "gone soon" });
    expect(await rsmq.peekMessageAsync({ qname: "q", id: NEVER })).to.deep.equal({});
    await rsmq.deleteMessageAsync({ qname: "q", id });
    expect(await rsmq.peekMessageAsync({ qname: "q", id })).to.deep.equal({});
  });

  it("rejects queueNotFound for a missing queue, and the callback twin gets the same", async () => {
    const error = await rsmq.peekMessageAsync({ qname: "nope", id: NEVER }).then(
      () => undefined,
      (err: Error) => err,
    );
    expect(error?.name).to.equal("queueNotFound");
    const viaCallback = await new Promise<Error | null>((resolve) => rsmq.peekMessage({ qname: "nope", id: NEVER }, (err) => resolve(err)));
    expect(viaCallback?.name).to.equal("queueNotFound");
  });

  it("costs one command, and bad input none", async () => {
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "m" });
    const one = await monitor(() => rsmq.peekMessageAsync({ qname: "q", id }));
    expect(clientCommands(one)).to.have.length(1);
    expect(clientCommands(one)[0]).to.match(/^evalsha/);

    let refused: Error | undefined;
    const none = await monitor(async () => {
      refused = await rsmq.peekMessageAsync({ qname: "q", id: "not an id" }).then(
        () => undefined,
        (err: Error) => err,
      );
    });
    expect(refused?.name).to.equal("invalidFormat");
    expect(clientCommands(none)).to.deep.equal([]);
  });
});
