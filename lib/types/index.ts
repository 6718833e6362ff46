/**
 * The public types. Names and shapes follow rsmq 0.12.4's own declarations, so code written
 * against `RedisSMQ.QueueMessage` and friends compiles unchanged.
 */
export * from "./callback";
export * from "./options";
export * from "./queues";
export * from "./controls";
export * from "./messages";
export * from "./peeking";
export * from "./dead-letters";
export * from "./doctor";
export * from "./schedules";
