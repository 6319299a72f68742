import { existsSync, statSync } from "node:fs";
import { createPrometheus, type Prometheus } from "./prometheus.ts";
import type { Db } from "../db/client.ts";
import type { Clock } from "../domain/context.ts";

/**
 * The node's Prometheus metrics, with the gauges read from its database at scrape time. Imported
 * on demand by `kith serve` when KITH_METRICS_TOKEN is set (prom-client stays out of start-up).
 */
export function createNodeMetrics(db: Db, clock: Clock): Prometheus {
  return createPrometheus(() => {
    const outbox = db.$client.query<{ n: number; oldest: number | null }, []>("SELECT count(*) AS n, min(created_at) AS oldest FROM outbox WHERE status = 'queued'").get();
    const file = db.$client.filename;
    const size = (f: string) => (existsSync(f) ? statSync(f).size : 0);
    return {
      outboxDepth: outbox?.n ?? 0,
      outboxOldestSeconds: outbox?.oldest != null ? Math.max(0, (clock.now() - outbox.oldest) / 1000) : 0,
      databaseBytes: file && file !== ":memory:" ? size(file) + size(`${file}-wal`) : 0,
    };
  });
}
