import * as v from "valibot";
import { getOutboxStatus } from "../../domain/outbox/get-outbox-status.ts";
import type { OwnerTokens } from "../../security/owner-token.ts";
import type { SurfaceDeps } from "../deps.ts";
import { OWNER_SECURITY } from "../plugins/owner-auth.ts";
import { errors } from "../schemas/common.ts";
import { ownerApi } from "./owner.routes.ts";

const when = (description: string) => v.pipe(v.nullable(v.string()), v.description(description));

const PeerDeliveryDoc = v.object({
  peerPrincipal: v.string(),
  agentId: v.nullable(v.string()),
  displayName: v.nullable(v.string()),
  connectionId: v.nullable(v.string()),
  queued: v.number(),
  failed: v.number(),
  delivered: v.number(),
  failing: v.pipe(v.boolean(), v.description("The most recent attempt to this peer did not succeed")),
  lastAttemptAt: when("RFC 3339"),
  lastStatus: v.nullable(v.number()),
  lastError: when("Why the last attempt failed (network error or the peer's INK error code)"),
  nextAttemptAt: when("The next retry of the oldest queued message"),
  lastDeliveredAt: when("RFC 3339"),
});

const OutboxStatusDoc = v.object({
  queued: v.number(),
  failed: v.number(),
  delivered: v.number(),
  oldestQueuedAt: when("When the oldest message still waiting was queued"),
  nextAttemptAt: when("When the worker tries next"),
  peers: v.pipe(v.array(PeerDeliveryDoc), v.description("Peers with a backlog or whose last attempt failed; most queued first, at most 50")),
});

/** The delivery backlog for the owner's node status (the console's status screen). */
export function outboxRoutes(deps: SurfaceDeps, o: { tokens: Pick<OwnerTokens, "verify"> }) {
  return ownerApi(o.tokens).get("/outbox", ({ actor }) => getOutboxStatus(deps.ctx(actor)), {
    response: { 200: OutboxStatusDoc, ...errors(401) },
    detail: {
      tags: ["Intents"],
      summary: "Outbox backlog and failing peers",
      description: "Counts of queued, failed and delivered outbound messages, and per peer the backlog and whether its last delivery attempt failed (with the reason).",
      security: OWNER_SECURITY,
    },
  });
}
