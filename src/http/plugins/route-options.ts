import { Elysia } from "elysia";
import type * as v from "valibot";
import type { RateRule } from "../../security/rate-limit.ts";

/** A per-address limit, counted by the request gate before anything else (for a body: before reading it). */
export interface PerIpRule extends RateRule {
  bucket: string;
}

/**
 * Route options that are data, read from the app's route list by the request gate and the
 * OpenAPI generator (the macros add no hooks). `.use(routeOptions)` on an instance to use them.
 */
export const routeOptions = new Elysia({ name: "kith/route-options" }).macro({
  perIp: (_rule: PerIpRule) => ({}),
  /** The body a raw route (`parse: "none"`) reads and checks itself: documentation only. */
  bodyDoc: (_schema: v.GenericSchema) => ({}),
});

/** What the request gate and the OpenAPI generator read of a route's options. */
export interface RouteHooks {
  body?: unknown;
  parse?: Array<{ fn: unknown; scope?: string }>;
  perIp?: PerIpRule;
  bodyDoc?: v.GenericSchema;
  transform?: Array<{ fn: unknown }>;
}

/**
 * Who reads a route's body: the request gate (`json`), the route itself from the raw request
 * (`raw`, `parse: "none"`), or a parse hook of the route's own (`own`). Global parse hooks (the
 * gate) are not the route's.
 */
export function bodyReader(hooks: RouteHooks): "json" | "raw" | "own" {
  const own = (hooks.parse ?? []).filter((p) => p.scope !== "global").map((p) => p.fn);
  return own.includes("none") ? "raw" : own.length > 0 ? "own" : "json";
}
