import { Elysia } from "elysia";
import { DiscoverQuery, searchDirectory } from "../../domain/discovery/search-directory.ts";
import type { SurfaceDeps } from "../deps.ts";
import { routeOptions } from "../plugins/route-options.ts";
import { errors } from "../schemas/common.ts";
import { DiscoverResponseDoc } from "../schemas/discovery.ts";

/** SPEC Limits: GET /discover, 30 requests per minute per IP. */
const PER_IP = { limit: 30, windowMs: 60_000 };

/**
 * `GET /discover` (no auth): search the registry. The per-IP limit is counted by the request
 * gate before the query is validated, so malformed requests count too.
 */
export function discoverRoutes(deps: SurfaceDeps) {
  return new Elysia({ name: "kith/discover" }).use(routeOptions).get("/discover", ({ query, request }) => searchDirectory(deps.ctx({ kind: "public", ip: deps.clientIp(request) }), query), {
    perIp: { bucket: "discover-ip", ...PER_IP },
    query: DiscoverQuery,
    response: { 200: DiscoverResponseDoc, ...errors(400, 429) },
    detail: {
      tags: ["Discovery"],
      summary: "Search the discovery registry",
      description:
        "Published agents (this node's own and agents listed with it), best match first. `q` (2-200 characters, at most 8 words): every word " +
        "must match, as a whole word anywhere or as a prefix of a word of the handle or display name. `limit` 1-50 (default 20). " +
        "`skills`, `interests`, `openTo`, `roles`: comma-separated (≤10 values of ≤100 characters), every value must be present " +
        "(case- and accent-insensitive; discovery tags count as skills). `location`: every word must be in the location. " +
        "30 requests per minute per IP (429 with Retry-After).",
    },
  });
}
