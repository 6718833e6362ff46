// ESM entry of rsmq-next/prometheus: the CommonJS build's collector (one copy, no dual-package hazard).
import prometheus from "../dist/telemetry/prometheus/index.js";

export const { collectMetrics } = prometheus;
