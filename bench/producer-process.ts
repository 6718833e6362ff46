/**
 * A producer in another process, for delivery latency: started by delivery-latency.ts with
 * fork(), it opens rsmq-next or rsmq 0.12.4 with `realtime: true` and, for each `{ qname, delay }`
 * it is sent, stamps the body with the wall clock and calls sendMessage.
 */
import { close, open } from "./clients";
import type { Lib } from "./clients";
import { wallClockMs } from "./wall-clock";

interface Setup {
  lib: Lib;
  host: string;
  port: number;
  ns: string;
}

async function main(): Promise<void> {
  const setup = JSON.parse(process.argv[2]) as Setup;
  const api = await open(setup.lib, setup, { ns: setup.ns, realtime: true });
  process.on("message", (request: { qname: string; delay: number } | "quit") => {
    if (request === "quit") {
      void close(api).finally(() => process.disconnect());
      return;
    }
    const message = JSON.stringify({ t: wallClockMs() });
    api.sendMessageAsync({ qname: request.qname, message, delay: request.delay }).then(
      (id) => process.send?.({ id }),
      (error: Error) => process.send?.({ error: error.message }),
    );
  });
  process.send?.("ready");
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
