import { asc } from "drizzle-orm";
import { agentKeys } from "../../db/schema/index.ts";
import { REGISTERED_INTENTS, type RotationLink } from "../../ink/index.ts";
import type { NodeIdentity, With } from "../context.ts";
import { discoveryDescriptor, type DiscoveryDescriptor } from "../discovery/discovery-descriptor.ts";
import { findOwnListing } from "../discovery/find-own-listing.ts";
import { ownProfileSnapshot, type ProfileSnapshot } from "../profile/own-profile-snapshot.ts";
import { findProfileSnapshot } from "../profile/find-profile-snapshot.ts";
import { findAgentRow, type AgentRow } from "../agent/find-agent-row.ts";
import { cardVisibilityOf, type CardVisibility } from "../agent/card-visibility-of.ts";
import { inboundBaseOf } from "../agent/inbound-base-of.ts";
import { inboundPathOf } from "../agent/inbound-path-of.ts";
import { agentIdOf } from "../agent/agent-id-of.ts";
import { listRotationLinks } from "../agent/list-rotation-links.ts";

type KeyRow = typeof agentKeys.$inferSelect;

export interface CardKeyEntry {
  keyId: string;
  algorithm: "Ed25519" | "X25519";
  publicKeyMultibase: string;
  status: "active" | "retired" | "revoked";
  validFrom: string;
  validUntil?: string;
  revokedAt?: string;
}

export interface AgentCard {
  protocol: "ink/0.1";
  agentId: string;
  handle: string;
  displayName: string;
  endpoint: string;
  publicKeyMultibase: string;
  capabilities: { intentsAccepted: string[]; intentsSent: string[]; receipts?: { send: boolean; dispositions: string[] }; auditExchange?: boolean };
  availability: { timezone: string };
  keys: { signing: CardKeyEntry[]; encryption: CardKeyEntry[] };
  currentSigningKeyId: string;
  currentEncryptionKeyId?: string;
  keySetVersion: number;
  supportedProtocolVersions: string[];
  /** INK §11: `private` once the owner hides the card (agent/card-visibility-of.ts). */
  visibility: CardVisibility;
  /** INK §11 discovery descriptor: present once the owner published (enabled: false after unpublish). */
  discovery?: DiscoveryDescriptor;
  updatedAt: string;
  /**
   * The owner's `public` profile snapshot (INK §11 `profileSnapshot?`): the one the owner wrote,
   * or, while published, the one derived from the profile (what directories index).
   */
  profileSnapshot?: ProfileSnapshot;
  /** INK §13: one signed link per signing-key rotation, oldest first; absent before the first one. */
  rotationChain?: RotationLink[];
  /** INK §13 card proof by the current active signing key (internal/sign-own-card.ts); last member. */
  cardSignature?: { keyId: string; signature: string };
}

/** The versions this node verifies (INK §16); it sends 0.2 only to peers that list it. */
export const SUPPORTED_PROTOCOL_VERSIONS = ["ink/0.1", "ink/0.2"];

/**
 * The Agent Card body, before its proof (internal/sign-own-card.ts signs what is served); null when the node
 * has no agent yet.
 */
export function getAgentCard(ctx: With<"node">): AgentCard | null {
  const node = ctx.node;
  const agent = findAgentRow(ctx.db);
  if (!agent) return null;
  const keys = ctx.db.select().from(agentKeys).orderBy(asc(agentKeys.createdAt), asc(agentKeys.keyId)).all();
  // The public snapshot feeds the card (issue 6); while published, the card always carries one.
  const discovery = discoveryDescriptor(findOwnListing(ctx.db, agent, node.wordmark));
  const snapshot = findProfileSnapshot(ctx.db, "public") ?? (discovery?.enabled ? ownProfileSnapshot(ctx.db, "public") : null);
  const card = buildAgentCard(agent, keys, node, snapshot);
  card.visibility = cardVisibilityOf(ctx.db);
  // A descriptor may only narrow the visibility (INK §11): a private card is never listed, so it has none.
  if (discovery && card.visibility === "public") card.discovery = discovery;
  const chain = listRotationLinks(ctx.db);
  if (chain.length > 0) card.rotationChain = chain;
  return card;
}

/**
 * Pure card assembly (INK §11). `publicKeyMultibase` is the current active signing key so legacy
 * single-key verifiers keep working after a rotation; the key sets carry every key with its
 * status and window so rotation-aware verifiers apply the authority rule (INK §10).
 */
function buildAgentCard(agent: AgentRow, keys: KeyRow[], node: NodeIdentity, profileSnapshot: ProfileSnapshot | null = null): AgentCard {
  const agentId = agentIdOf(agent, node.wordmark);
  const signing = keys.filter((k) => k.role === "signing");
  const encryption = keys.filter((k) => k.role === "encryption");
  const activeSigning = latestActive(signing);
  const activeEncryption = latestActive(encryption);
  const card: AgentCard = {
    protocol: "ink/0.1",
    agentId,
    handle: agent.handle,
    displayName: agent.displayName,
    endpoint: inboundBaseOf(node) + inboundPathOf(agentId),
    publicKeyMultibase: activeSigning?.publicKeyMultibase ?? agent.genesisKey,
    // AUDIT §1, §4: this node sends `delivered` receipts, takes receipts at /ink/v1/receipt and answers
    // /ink/v1/audit, at its endpoint's origin (docs/decisions/receipts-and-audit.md). Behind a mailbox
    // that origin is the mailbox node's, which takes neither for this agent: not advertised then.
    capabilities: { intentsAccepted: [...REGISTERED_INTENTS], intentsSent: [...REGISTERED_INTENTS], ...(node.mailboxUrl ? {} : { receipts: { send: true, dispositions: ["delivered"] }, auditExchange: true }) },
    availability: { timezone: agent.timezone },
    keys: { signing: signing.map((k) => cardKey(k, "Ed25519")), encryption: encryption.map((k) => cardKey(k, "X25519")) },
    currentSigningKeyId: activeSigning?.keyId ?? signing[0]?.keyId ?? "",
    keySetVersion: agent.keySetVersion,
    supportedProtocolVersions: SUPPORTED_PROTOCOL_VERSIONS,
    visibility: "public",
    updatedAt: new Date(agent.updatedAt).toISOString(),
  };
  if (activeEncryption) card.currentEncryptionKeyId = activeEncryption.keyId;
  if (profileSnapshot) card.profileSnapshot = profileSnapshot;
  return card;
}

function latestActive(keys: KeyRow[]): KeyRow | undefined {
  return keys.filter((k) => k.status === "active").at(-1);
}

function cardKey(k: KeyRow, algorithm: CardKeyEntry["algorithm"]): CardKeyEntry {
  const entry: CardKeyEntry = {
    keyId: k.keyId,
    algorithm,
    publicKeyMultibase: k.publicKeyMultibase,
    status: k.status,
    validFrom: new Date(k.validFrom).toISOString(),
  };
  if (k.validUntil !== null) entry.validUntil = new Date(k.validUntil).toISOString();
  if (k.revokedAt !== null) entry.revokedAt = new Date(k.revokedAt).toISOString();
  return entry;
}
