// ESM entry: the same class the CommonJS entry exports (one copy, no dual-package hazard).
import RedisSMQ from "../dist/index.js";

export default RedisSMQ;
export const { Worker, Scheduler, RetryPolicy, PoisonError, RateLimitError, MessageCancelledError } = RedisSMQ;
export { RedisSMQ };
