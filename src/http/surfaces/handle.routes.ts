import { Elysia } from "elysia";
import * as v from "valibot";
import { resolveHandle } from "../../domain/identity/resolve-handle.ts";
import type { SurfaceDeps } from "../deps.ts";
import { PUBLIC } from "../deps.ts";
import { errors } from "../schemas/common.ts";

export const HandleResolution = v.object({
  found: v.boolean(),
  agentId: v.pipe(v.nullable(v.string()), v.description("The agent id, or null when the handle is unknown")),
  handle: v.string(),
});

/** `GET /{handle}`: registered last; the router prefers every static path over this parameter. */
export function handleRoutes(deps: SurfaceDeps) {
  return new Elysia({ name: "kith/handle" }).get(
    "/:handle",
    ({ params }) => resolveHandle(deps.ctx(PUBLIC), params.handle),
    {
      params: v.object({ handle: v.pipe(v.string(), v.maxLength(256)) }),
      response: { 200: HandleResolution, ...errors(404) },
      detail: { tags: ["Discovery"], summary: "Resolve a handle to an agent id (found: false for unknown handles)" },
    },
  );
}
