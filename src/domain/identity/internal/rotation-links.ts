import { asc, eq, sql } from "drizzle-orm";
import type { Db, Tx } from "../../../db/client.ts";
import { agentKeys, agentRotationLinks, agents } from "../../../db/schema/index.ts";
import { MAX_ROTATION_LINKS, signRotationLink, type RotationLink, type RotationLinkKey } from "../../../ink/index.ts";
import { DomainError } from "../../errors.ts";
import { conflict, notFound } from "../../internal/errors.ts";
import type { AgentRow } from "../../agent/find-agent-row.ts";
import { listRotationLinks } from "../../agent/list-rotation-links.ts";

type KeyRow = typeof agentKeys.$inferSelect;

/** INK §11: a card lists at most 32 signing keys, and a link's set is the card's set. */
export const MAX_SIGNING_KEYS = 32;

/** A signing set as a link (and the card) lists it: keyId, key, status, in card order. */
export function linkSetOf(signing: readonly Pick<KeyRow, "keyId" | "publicKeyMultibase" | "status">[]): RotationLinkKey[] {
  return signing.map((k) => ({ keyId: k.keyId, publicKeyMultibase: k.publicKeyMultibase, status: k.status }));
}

export interface RotationPlan {
  /** Links to append, oldest first: a bridge from genesis when earlier rotations left none, then the rotation's own. */
  links: RotationLink[];
}

/**
 * The links a change of the signing set publishes (INK §13): `after`, the set once the change is
 * made (a rotation: the old active key retired and a new one active; a revocation: a key revoked,
 * and a new active one when it was the active key), at version+1, signed by the key active before
 * the change, named in `prevKeyId` (INK lets only a key active in the previous link's set sign the
 * next one, so a revocation of the active key is signed by that key: the link records history and
 * ends that key's authority, docs/decisions/key-revocation.md). A node that rotated before it kept
 * a chain has none while its version is past 1: a first link, signed by the genesis key, states the
 * current set at the current version (docs/decisions/ink-card-signature.md). Refuses a change the
 * chain or the card could not carry.
 */
function planKeySetLinks(
  input: { agent: AgentRow; signing: KeyRow[]; existing: RotationLink[]; after: RotationLinkKey[] },
  privateKeyOf: (keyId: string) => Uint8Array | null,
): RotationPlan {
  const { agent, signing, existing, after } = input;
  const active = signing.filter((k) => k.status === "active").at(-1);
  if (!active) throw conflict("there is no active signing key to sign the change with");
  const head = existing.at(-1);
  if (head && head.keySetVersion !== agent.keySetVersion) {
    throw new DomainError("internal_error", `the stored rotation chain ends at version ${head.keySetVersion}, the agent is at ${agent.keySetVersion}`);
  }
  const links: RotationLink[] = [];
  if (!head && (agent.keySetVersion > 1 || active.publicKeyMultibase !== agent.genesisKey)) {
    const genesis = signing.find((k) => k.publicKeyMultibase === agent.genesisKey);
    links.push(sign({ keySetVersion: agent.keySetVersion, signing: linkSetOf(signing), prevKeyId: genesis?.keyId ?? null }, genesis ? privateKeyOf(genesis.keyId) : null, "the genesis key"));
  }
  if (existing.length + links.length + 1 > MAX_ROTATION_LINKS) {
    throw conflict(`the card's rotation chain already has ${existing.length + links.length} links, the most INK allows (${MAX_ROTATION_LINKS}): peers could not verify a further key change`);
  }
  if (after.length > MAX_SIGNING_KEYS) {
    throw conflict(`the card already lists ${signing.length} signing keys, the most INK allows (${MAX_SIGNING_KEYS}): a further key cannot be published`);
  }
  links.push(sign({ keySetVersion: agent.keySetVersion + 1, signing: after, prevKeyId: active.keyId }, privateKeyOf(active.keyId), `the active key ${active.keyId}`));
  return { links };
}

/**
 * Plans a change of the signing set on the current state: `change` maps the signing keys (oldest
 * first) to the set after the change. Run it once before any key is made (a dry run that refuses
 * early) and again inside the writing transaction.
 */
export function planKeySetChange(db: Db | Tx, change: (signing: RotationLinkKey[]) => RotationLinkKey[], privateKeyOf: (keyId: string) => Uint8Array | null): RotationPlan {
  const agent = db.select().from(agents).where(eq(agents.id, 1)).get();
  if (!agent) throw notFound("agent");
  const signing = db.select().from(agentKeys).where(eq(agentKeys.role, "signing")).orderBy(asc(agentKeys.createdAt), asc(agentKeys.keyId)).all();
  return planKeySetLinks({ agent, signing, existing: listRotationLinks(db), after: change(linkSetOf(signing)) }, privateKeyOf);
}

/** Publishes a planned change in the caller's transaction: `keySetVersion` + 1 and the new links. Returns the new version. */
export function publishKeySetChange(tx: Tx, plan: RotationPlan, now: number): number {
  const agent = tx
    .update(agents)
    .set({ keySetVersion: sql`${agents.keySetVersion} + 1`, updatedAt: now })
    .where(eq(agents.id, 1))
    .returning({ keySetVersion: agents.keySetVersion })
    .get()!;
  for (const link of plan.links) tx.insert(agentRotationLinks).values({ keySetVersion: link.keySetVersion, linkJson: JSON.stringify(link), createdAt: now }).run();
  return agent.keySetVersion;
}

function sign(link: Omit<RotationLink, "signature">, privateKey: Uint8Array | null, who: string): RotationLink {
  if (!privateKey) throw conflict(`cannot sign the rotation link: the private half of ${who} is not in the key file`);
  const signed = signRotationLink(link, privateKey);
  if (!signed.ok) throw new DomainError("internal_error", `rotation link is not signable: ${signed.reason}`);
  return signed.link;
}
