/**
 * What a send publishes once its messages are stored. rsmq's `realtime` notification (the
 * queue's ZCARD on `<ns>:rt:<qname>` after every send) keeps its meaning; without it an rsmq-next
 * send publishes a wake on `<ns>:wake:<qname>`, and only when a sleeping consumer needs one (no
 * message visible, none due sooner: see lua/shared/store-message.lua), so a steady stream
 * publishes nothing and a consumer in another process hears a send to an idle queue at once.
 */
import type { QueueKeys } from "../keys";

/** `realtime`: rsmq's notification; `wake`: a wake when one is wanted; `none`: nothing. */
export type SendNotification = "realtime" | "wake" | "none";

/** From the constructor's `realtime` and `wakeConsumers`: realtime wins, since its publish wakes consumers too. */
export function sendNotification(realtime: boolean, wakeConsumers: boolean): SendNotification {
  if (realtime) return "realtime";
  return wakeConsumers ? "wake" : "none";
}

/**
 * The send scripts' channel and kind arguments (lua/sendMessage-2.lua's ARGV[5] and ARGV[6]): the
 * channel, or "" for none; the kind, sharded (SPUBLISH) in Redis Cluster.
 */
export function notificationArgs(keys: QueueKeys, notify: SendNotification, cluster: boolean): [channel: string, kind: string] {
  if (notify === "none") return ["", ""];
  if (notify === "realtime") return [keys.realtimeChannel, cluster ? "sharded" : ""];
  return [keys.wakeChannel, cluster ? "wake-sharded" : "wake"];
}
