import type { Db } from "../../db/client.ts";
import type { NodeIdentity } from "../context.ts";
import { type OwnIdentity, ownIdentity } from "./own-identity.ts";

const cache = new WeakMap<Db, { publicUrl: string; wordmark: string; mailboxUrl: string | null; identity: OwnIdentity }>();

/**
 * The same, memoized per database for the inbound hot path: once the agent exists, its id, endpoint
 * path and card URL never change (they derive from the genesis key and the node settings).
 */
export function cachedOwnIdentity(db: Db, node: NodeIdentity): OwnIdentity | null {
  const hit = cache.get(db);
  const mailboxUrl = node.mailboxUrl ?? null;
  if (hit && hit.publicUrl === node.publicUrl && hit.wordmark === node.wordmark && hit.mailboxUrl === mailboxUrl) return hit.identity;
  const identity = ownIdentity(db, node);
  if (identity) cache.set(db, { publicUrl: node.publicUrl, wordmark: node.wordmark, mailboxUrl, identity });
  return identity;
}
