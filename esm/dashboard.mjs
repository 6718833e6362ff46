// ESM entry of rsmq-next/dashboard: the CommonJS build's handler (one copy, no dual-package hazard).
import dashboard from "../dist/dashboard/index.js";

export const { createDashboard } = dashboard;
