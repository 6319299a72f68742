import client from "prom-client";
import type { Metrics } from "../domain/context.ts";

/** What the node reports at each scrape (read from the database then, not kept up to date). */
export interface NodeGauges {
  outboxDepth: number;
  /** Age of the oldest queued delivery, 0 when none. */
  outboxOldestSeconds: number;
  databaseBytes: number;
}

export interface Prometheus {
  metrics: Metrics;
  /** The exposition text and its media type. */
  render(): Promise<{ contentType: string; body: string }>;
}

/**
 * The node's metrics in prom-client (the ecosystem's client: its registry, exposition format and
 * process/event-loop collectors, which work on Bun). Loaded only when metrics are enabled
 * (kith serve imports node/metrics.ts, and so this file, on demand), so an idle node does not pay for it.
 */
export function createPrometheus(gauges: () => NodeGauges): Prometheus {
  const registry = new client.Registry();
  // process_*, nodejs_eventloop_lag_* (perf_hooks' event-loop delay histogram), heap, GC
  client.collectDefaultMetrics({ register: registry });
  const requests = new client.Counter({ name: "kith_http_requests_total", help: "HTTP requests by method, route template and the status sent", labelNames: ["method", "route", "status"], registers: [registry] });
  const intents = new client.Counter({ name: "kith_ink_intents_total", help: "INK intents received: accepted, held for the owner, or refused with INK's reason", labelNames: ["outcome", "reason"], registers: [registry] });
  const deliveries = new client.Counter({ name: "kith_deliveries_total", help: "Outbound delivery attempts by outcome", labelNames: ["outcome"], registers: [registry] });
  const signIn = new client.Counter({ name: "kith_sign_in_failures_total", help: "Refused owner sign-in requests by route", labelNames: ["route"], registers: [registry] });
  const extensions = new client.Counter({ name: "kith_extension_calls_total", help: "Extension API requests by installation, operation and outcome (ok or the refusal's code)", labelNames: ["installation", "operation", "outcome"], registers: [registry] });
  let last: NodeGauges | null = null;
  const read = () => (last ??= gauges());
  new client.Gauge({ name: "kith_outbox_depth", help: "Deliveries waiting in the outbox", registers: [registry], collect() { this.set(read().outboxDepth); } });
  new client.Gauge({ name: "kith_outbox_oldest_age_seconds", help: "Age of the oldest waiting delivery (0 when none)", registers: [registry], collect() { this.set(read().outboxOldestSeconds); } });
  new client.Gauge({ name: "kith_database_bytes", help: "Size of kith.db and its write-ahead log", registers: [registry], collect() { this.set(read().databaseBytes); } });
  return {
    metrics: {
      request: (method, route, status) => requests.inc({ method, route, status: String(status) }),
      inkIntent: (outcome, reason) => intents.inc({ outcome, reason }),
      delivery: (outcome) => deliveries.inc({ outcome }),
      signInFailure: (route) => signIn.inc({ route }),
      extensionCall: (installation, operation, outcome) => extensions.inc({ installation: installation ?? "(unauthenticated)", operation, outcome }),
    },
    async render() {
      last = null; // one database read per scrape, shared by the three gauges
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
