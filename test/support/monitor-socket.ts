/**
 * A raw MONITOR connection (node-redis v4 has no MONITOR): every command line the server reports,
 * handed to `onLine` without its leading "+". Resolves once the server has acknowledged MONITOR.
 * Shared by the test helpers and the bench, which only differ in what they keep of each line.
 */
import { connect, type Socket } from "net";

export function openMonitor(host: string, port: number, onLine: (line: string) => void): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, host);
    let buffer = "";
    let acknowledged = false;
    socket.once("error", reject);
    socket.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8");
      let end: number;
      while ((end = buffer.indexOf("\r\n")) >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (!acknowledged && line === "+OK") {
          acknowledged = true;
          resolve(socket);
        } else if (line.startsWith("+")) {
          onLine(line.slice(1));
        }
      }
    });
    socket.write("MONITOR\r\n");
  });
}
