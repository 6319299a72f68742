import * as v from "valibot";
import { transaction } from "../../db/client.ts";
import type { With } from "../context.ts";
import { DomainError } from "../errors.ts";
import { ownIdentity } from "../agent/own-identity.ts";
import { cardVisibilityOf } from "../agent/card-visibility-of.ts";
import { noAgentYet } from "../internal/errors.ts";
import { ownProfileSnapshot } from "../profile/own-profile-snapshot.ts";
import { getPublication, type PublicationState } from "./get-publication.ts";
import { profileOf, saveListing } from "./internal/listings.ts";
import { ownPrincipal, selfProfile } from "./internal/own-publication.ts";
import { findOwnListing } from "./find-own-listing.ts";
import { queueDirectoryPushes } from "./internal/queue-directory-pushes.ts";
import { requireOwner } from "../internal/actors.ts";

const words = (max: number, count: number, name: string) =>
  v.pipe(
    v.array(v.pipe(v.string(), v.trim(), v.minLength(1, `${name}: empty value`), v.maxLength(max, `${name}: each at most ${max} characters`))),
    v.maxLength(count, `${name}: at most ${count} values`),
    v.transform((xs) => [...new Set(xs)]),
  );

/**
 * `POST /api/svc/discovery/publish` body (all optional; an omitted member keeps the value of the
 * previous publication). Tags follow INK's descriptor rule (≤32 of 1-64 characters).
 */
export const PublishInput = v.pipe(
  // valibot's object schemas take arrays; a publication is an object
  v.custom<Record<string, unknown>>((x) => typeof x === "object" && x !== null && !Array.isArray(x), "a JSON object {tags?, location?, roles?}"),
  v.strictObject(
    {
      tags: v.optional(words(64, 32, "tags")),
      location: v.optional(v.nullable(v.pipe(v.string(), v.trim(), v.maxLength(200, "location: at most 200 characters")))),
      roles: v.optional(words(100, 16, "roles")),
    },
    (issue) => `unknown member ${JSON.stringify(issue.expected === "never" ? issue.input : issue.received)}; allowed: tags, location, roles`,
  ),
);
export type PublishInput = v.InferOutput<typeof PublishInput>;

/**
 * Lists this node's agent in its own registry from the `public` profile snapshot, turns the card's
 * discovery descriptor on, and queues a publish to every configured directory (after commit the
 * pusher is woken). Publishing again refreshes the listing from the current snapshot.
 */
export function publishAgent(ctx: With<"node" | "directory" | "wake">, input: PublishInput): PublicationState {
  requireOwner(ctx, "publishes the agent");
  const own = ownIdentity(ctx.db, ctx.node);
  const principal = own ? ownPrincipal(own.agent, ctx.node.wordmark) : null;
  if (!own || !principal) throw noAgentYet();
  if (cardVisibilityOf(ctx.db) === "private") {
    throw new DomainError("conflict", "the agent's card is private: directories could not fetch it; make it public first (PUT /api/svc/visibility {\"visibility\":\"public\"})");
  }
  const now = ctx.clock.now();
  transaction(ctx.db, (tx) => {
    const previous = findOwnListing(tx, own.agent, ctx.node.wordmark);
    const before = previous ? profileOf(previous) : null;
    const profile = selfProfile(own.agent, ownProfileSnapshot(tx, "public"), {
      tags: input.tags ?? before?.tags ?? [],
      location: input.location === undefined ? (before?.location ?? null) : input.location || null,
      roles: input.roles ?? before?.roles ?? [],
    });
    saveListing(tx, { principal, agentId: own.agentId, cardUrl: own.cardUrl, source: "self", profile }, now, null);
    queueDirectoryPushes(tx, ctx.ids, ctx.directory.directories, "publish", now);
  });
  ctx.log.info("agent published", { directories: ctx.directory.directories.length });
  if (ctx.directory.directories.length > 0) ctx.wake.directoryPusher();
  return getPublication(ctx);
}
