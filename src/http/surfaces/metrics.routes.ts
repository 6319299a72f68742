import { Elysia } from "elysia";
import { DomainError } from "../../domain/errors.ts";
import { secretsEqual } from "../../security/secret-box.ts";
import { errorResponse } from "../schemas/common.ts";

/** GET /metrics when KITH_METRICS_TOKEN is set: the secret, and what renders the exposition text. */
export interface MetricsEndpoint {
  token: string;
  render(): Promise<{ contentType: string; body: string }>;
}

/**
 * Prometheus scrape endpoint: 404 unless enabled. Protected by a bearer secret rather than
 * "loopback only": behind a reverse proxy every request comes from loopback
 * (docs/decisions/metrics.md). Compared in constant time. The route always exists, so the
 * OpenAPI document is the same on every node.
 */
export function metricsRoutes(endpoint: MetricsEndpoint | null) {
  return new Elysia({ name: "kith/metrics" }).get(
    "/metrics",
    async ({ request }) => {
      if (!endpoint) throw new DomainError("not_found", "metrics are off on this node (KITH_METRICS_TOKEN enables them)");
      const auth = request.headers.get("authorization") ?? "";
      const given = /^Bearer /i.test(auth) ? auth.slice(7).trim() : "";
      if (!secretsEqual(given, endpoint.token)) throw new DomainError("unauthorized", "GET /metrics needs Authorization: Bearer <KITH_METRICS_TOKEN>");
      const { contentType, body } = await endpoint.render();
      return new Response(body, { headers: { "content-type": contentType, "cache-control": "no-store" } });
    },
    {
      detail: {
        tags: ["Node"],
        summary: "Prometheus metrics (text format 0.0.4); KITH_METRICS_TOKEN as a bearer secret",
        responses: {
          200: { description: "Prometheus exposition text", content: { "text/plain": { schema: { type: "string" } } } },
          401: errorResponse("Missing or wrong bearer secret"),
          404: errorResponse("Metrics are off (KITH_METRICS_TOKEN is not set)"),
        },
      },
    },
  );
}
