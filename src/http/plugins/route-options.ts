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
// A macro's `seed` names its result for Elysia's per-route de-duplication; without one Elysia
// JSON-stringifies the option's value (every route's valibot schema, ~250 KB) and checksums it at
// start: 2.3 ms and 1.7 MiB of JIT-compiled code for hooks that add nothing (hx-boot's measure).
export const routeOptions = new Elysia({ name: "kith/route-options" }).macro({
  perIp: (_rule: PerIpRule) => ({ seed: "perIp" }),
  /** The body a raw route (`parse: "none"`) reads and checks itself: documentation only. */
  bodyDoc: (_schema: v.GenericSchema) => ({ seed: "bodyDoc" }),
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
