import type { Actor, Ctx, Logger } from "../domain/context.ts";
import type { NodeIdentity } from "../domain/identity/agent.ts";

/**
 * What every surface receives from the composition root. Surfaces never see the database: they
 * turn an authenticated actor into a `Ctx` and hand it to one domain verb.
 */
export interface SurfaceDeps {
  ctx(actor: Actor): Ctx;
  node: NodeIdentity & { version: string };
  log: Logger;
}

export const PUBLIC: Actor = { kind: "public", ip: null };
