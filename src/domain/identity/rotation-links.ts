import { asc } from "drizzle-orm";
import type { Db, Tx } from "../../db/client.ts";
import { agentKeys, agentRotationLinks } from "../../db/schema/index.ts";
import { MAX_ROTATION_LINKS, signRotationLink, type RotationLink, type RotationLinkKey } from "../../ink/index.ts";
import type { AgentKey } from "../../security/agent-keys.ts";
import { conflict, DomainError } from "../errors.ts";
import type { AgentRow } from "./agent.ts";

type KeyRow = typeof agentKeys.$inferSelect;

/** INK §11: a card lists at most 32 signing keys, and a link's set is the card's set. */
export const MAX_SIGNING_KEYS = 32;

/** The published chain, oldest link first (INK §13 `rotationChain`). */
export function listRotationLinks(db: Db | Tx): RotationLink[] {
  return db
    .select({ linkJson: agentRotationLinks.linkJson })
    .from(agentRotationLinks)
    .orderBy(asc(agentRotationLinks.keySetVersion))
    .all()
    .map((r) => JSON.parse(r.linkJson) as RotationLink);
}

/** A signing set as a link (and the card) lists it: keyId, key, status, in card order. */
export function linkSetOf(signing: readonly Pick<KeyRow, "keyId" | "publicKeyMultibase" | "status">[]): RotationLinkKey[] {
  return signing.map((k) => ({ keyId: k.keyId, publicKeyMultibase: k.publicKeyMultibase, status: k.status }));
}

export interface RotationPlan {
  /** Links to append, oldest first: a bridge from genesis when earlier rotations left none, then the rotation's own. */
  links: RotationLink[];
}

/**
 * The links a planned rotation publishes (INK §13): the set after the rotation (the old active key
 * retired, `next` active) at version+1, signed by the key active before it, named in `prevKeyId`.
 * A node that rotated before it kept a chain has none while its version is past 1: a first link,
 * signed by the genesis key, states the current set at the current version (docs/decisions/
 * ink-card-signature.md). Refuses a rotation the chain or the card could not carry.
 */
export function planRotationLinks(
  input: { agent: AgentRow; signing: KeyRow[]; existing: RotationLink[]; next: AgentKey },
  privateKeyOf: (keyId: string) => Uint8Array | null,
): RotationPlan {
  const { agent, signing, existing, next } = input;
  const active = signing.filter((k) => k.status === "active").at(-1);
  if (!active) throw conflict("there is no active signing key to sign the rotation with");
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
    throw conflict(`the card's rotation chain already has ${existing.length + links.length} links, the most INK allows (${MAX_ROTATION_LINKS}): peers could not verify a further rotation`);
  }
  if (signing.length + 1 > MAX_SIGNING_KEYS) {
    throw conflict(`the card already lists ${signing.length} signing keys, the most INK allows (${MAX_SIGNING_KEYS}): a further rotation cannot be published`);
  }
  const after = [...signing.map((k) => ({ ...k, status: k.status === "active" ? ("retired" as const) : k.status })), { keyId: next.keyId, publicKeyMultibase: next.publicKeyMultibase, status: "active" as const }];
  links.push(sign({ keySetVersion: agent.keySetVersion + 1, signing: linkSetOf(after), prevKeyId: active.keyId }, privateKeyOf(active.keyId), `the active key ${active.keyId}`));
  return { links };
}

function sign(link: Omit<RotationLink, "signature">, privateKey: Uint8Array | null, who: string): RotationLink {
  if (!privateKey) throw conflict(`cannot sign the rotation link: the private half of ${who} is not in the key file`);
  const signed = signRotationLink(link, privateKey);
  if (!signed.ok) throw new DomainError("internal_error", `rotation link is not signable: ${signed.reason}`);
  return signed.link;
}
