import type { With } from "../context.ts";
import { requireExtension } from "../internal/actors.ts";
import { noAgentYet } from "../internal/errors.ts";
import { cachedOwnIdentity } from "../agent/cached-own-identity.ts";
import { activeSigningKey, requestCache } from "./internal/request-cache.ts";

export interface ExtIdentityView {
  agentId: string;
  /** SPEC's name for the agent an extension acts for, whatever the wordmark. */
  ownerTulpaId: string;
  handle: string;
  displayName: string;
  cardUrl: string;
  publicKeyMultibase: string;
  installationId: string;
  extensionId: string;
  permissions: string[];
  layers: string[];
  maxAutonomyTier: string;
}

/** GET /ext/v1/identity: the agent the extension acts for (verify tokens and audit events with its card's keys) and the grant in force. */
export function getExtIdentity(ctx: With<"node">): ExtIdentityView {
  const actor = requireExtension(ctx);
  const own = cachedOwnIdentity(ctx.db, ctx.node);
  if (!own) throw noAgentYet();
  // per request-cache generation (one point read of the counter instead of the sorted key query)
  const key = activeSigningKey(ctx.db, requestCache(ctx.db));
  return {
    agentId: own.agentId,
    ownerTulpaId: own.agentId,
    handle: own.agent.handle,
    displayName: own.agent.displayName,
    cardUrl: own.cardUrl,
    publicKeyMultibase: key?.multibase ?? "",
    installationId: actor.installationId,
    extensionId: actor.extensionId,
    permissions: actor.permissions,
    layers: actor.layers,
    maxAutonomyTier: actor.maxAutonomyTier,
  };
}
