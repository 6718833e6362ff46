/**
 * A send stored its messages but Redis refused their notification, realtime or wake (an ACL user
 * without the channel): the call succeeds, and the refusal is told once per channel as a lasting
 * problem.
 */
import { explainRefusal } from "../errors/refusals";
import type { Outlets } from "./descriptor";

/** What a send's reply says of its notification (see SentMessage). */
export interface RefusedNotification {
  readonly channel: string;
  readonly notificationRefused?: Error;
  readonly refusedCommand?: string;
  /** Whether it was a wake (operations/send-notification.ts), not rsmq's realtime count. */
  readonly wake?: boolean;
}

/** `stored`: what the call stored, as the report says it ("sendMessage stored the message"). */
export function reportRefusedNotification(
  { channel, notificationRefused, refusedCommand, wake }: RefusedNotification,
  stored: string,
  outlets: Pick<Outlets, "reportProblem">,
): void {
  const notification = wake ? "wake notification for consumers in other processes" : "realtime notification";
  const error = explainRefusal(notificationRefused, {
    operation: `${stored}, but its ${notification}`,
    channel,
    command: refusedCommand,
  });
  const reported = error instanceof Error ? error : new Error(String(error));
  if (reported === notificationRefused) {
    reported.message = `${stored}, but its ${notification} on ${channel} failed: ${reported.message}`;
  }
  outlets.reportProblem(`notification ${channel}`, reported);
}
