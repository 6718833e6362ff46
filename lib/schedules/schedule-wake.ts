/**
 * The control wake an upsert, remove, pause or resume of a schedule publishes on the queue's wake
 * channel (and hands this process's hub): `~sched:<server ms>`. It says nothing about messages, so
 * a Worker does not look for one; its firer reads the schedules again.
 */
import { CONTROL_WAKE_PREFIX } from "../operations/receive-block";

export const SCHEDULE_WAKE_PREFIX = `${CONTROL_WAKE_PREFIX}sched:`;

/** Whether a wake's text is a schedule change. */
export function isScheduleWake(text: string | undefined): boolean {
  return text !== undefined && text.startsWith(SCHEDULE_WAKE_PREFIX);
}
