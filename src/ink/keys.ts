// Sender key resolution under the rotation authority rule (INK §6.3, §10) and rotation-aware
// verification: statuses, validity windows, hint order, and the live-auth retired-key refusal.
import type { AgentCard } from "./agent-card.ts";
import { hasOwn } from "./bytes.ts";
import { decodeEd25519PublicKey, decodeX25519PublicKey } from "./multibase.ts";
import { agentIdPublicKey } from "./principal.ts";
import { parseTimestamp } from "./timestamp.ts";

export type KeyStatus = "active" | "retired" | "revoked";

/**
 * One signing-key candidate. Status and window members are `unknown` on purpose: presence is
 * semantic (INK §10) — a present-but-malformed `validFrom`/`validUntil` makes the key unusable,
 * a present `revokedAt` of any value revokes it. `undefined` counts as absent.
 */
export type SigningKeyEntry = {
  keyId: string;
  publicKey: Uint8Array;
  status: unknown;
  validFrom?: unknown;
  validUntil?: unknown;
  revokedAt?: unknown;
};

/**
 * Where a sender's verification keys come from.
 * - `key-set`: a card's `keys.signing` (authoritative once observed, even when empty) or a legacy
 *   card's single `publicKeyMultibase` (keyId `legacy`, [C16]). Failure: `signature_verification_failed`.
 * - `bootstrap`: the agentId's genesis key or a key stored at first contact, only while no card
 *   signing set was ever observed (keyId `bootstrap`). Failure: `invalid_signature`.
 * - `none`: nothing usable (`unresolvable_sender_key`).
 */
export type SenderKeys =
  | { kind: "key-set"; source: "card" | "legacy-card"; keys: readonly SigningKeyEntry[] }
  | { kind: "bootstrap"; publicKey: Uint8Array }
  | { kind: "none" };

export type KeyVerifyOptions = {
  /** Live transport authentication refuses a signature only a retired key verifies. */
  liveAuth?: boolean;
  /** Bounded grace window configured by the operator: accept retired keys on live auth. */
  allowRetiredForLiveAuth?: boolean;
};

export type KeyVerifyResult =
  | { ok: true; keyId: string; keyStatus: KeyStatus; publicKey: Uint8Array }
  | {
      ok: false;
      reason: "unresolvable_sender_key" | "invalid_signature" | "signature_verification_failed" | "retired_key_for_live_auth";
    };

// The reference examines only the first 20 entries of a card key set ([C15]).
const MAX_CANDIDATES = 20;

/**
 * Try the sender's keys in INK order — hinted key (if active/retired and in window), then other
 * active keys, then retired ones; revoked never — at instant `atMs` (the message timestamp for
 * live auth, the artifact's own timestamp otherwise). `verifyOne` checks the signature under one key.
 */
export function verifyWithSenderKeys(
  keys: SenderKeys,
  atMs: number,
  hint: string | null,
  verifyOne: (publicKey: Uint8Array) => boolean,
  options: KeyVerifyOptions = {},
): KeyVerifyResult {
  if (keys === null || typeof keys !== "object" || keys.kind === "none") return { ok: false, reason: "unresolvable_sender_key" };
  if (keys.kind === "bootstrap") {
    return safe(verifyOne, keys.publicKey)
      ? { ok: true, keyId: "bootstrap", keyStatus: "active", publicKey: keys.publicKey }
      : { ok: false, reason: "invalid_signature" };
  }
  if (!Number.isFinite(atMs)) return { ok: false, reason: "signature_verification_failed" };
  if (!Array.isArray(keys.keys)) return { ok: false, reason: "signature_verification_failed" };
  let retiredOnly = false;
  for (const entry of orderCandidates(keys.keys, atMs, hint)) {
    if (!safe(verifyOne, entry.publicKey)) continue;
    const keyStatus = entry.status as "active" | "retired";
    if (keyStatus === "retired" && options.liveAuth === true && options.allowRetiredForLiveAuth !== true) {
      retiredOnly = true;
      continue;
    }
    return { ok: true, keyId: entry.keyId, keyStatus, publicKey: entry.publicKey };
  }
  return { ok: false, reason: retiredOnly ? "retired_key_for_live_auth" : "signature_verification_failed" };
}

/** INK §10 window rule for one entry at instant `atMs` (both bounds inclusive). */
export function isKeyUsableAt(entry: SigningKeyEntry, atMs: number): boolean {
  if (entry.status !== "active" && entry.status !== "retired") return false;
  if (!(entry.publicKey instanceof Uint8Array) || entry.publicKey.length !== 32) return false;
  if (present(entry, "revokedAt")) return false;
  if (present(entry, "validFrom")) {
    const from = parseTimestamp(entry.validFrom);
    if (from === null || atMs < from) return false;
  }
  if (present(entry, "validUntil")) {
    const until = parseTimestamp(entry.validUntil);
    if (until === null || atMs > until) return false;
  }
  return true;
}

/**
 * Sender keys published by a validated card: `keys.signing` when present (entries whose key is
 * not an Ed25519 multibase are unusable and dropped), else the legacy single key.
 */
export function senderKeysFromCard(card: AgentCard): SenderKeys {
  const signing = card.keys?.signing;
  if (Array.isArray(signing)) {
    const keys: SigningKeyEntry[] = [];
    for (const k of signing) {
      const publicKey = decodeEd25519PublicKey(k.publicKeyMultibase);
      if (publicKey === null) continue;
      keys.push({ keyId: k.keyId, publicKey, status: k.status, validFrom: k.validFrom, validUntil: k.validUntil, revokedAt: k.revokedAt });
    }
    return { kind: "key-set", source: "card", keys };
  }
  const legacy = decodeEd25519PublicKey(card.publicKeyMultibase);
  return { kind: "key-set", source: "legacy-card", keys: legacy === null ? [] : [{ keyId: "legacy", publicKey: legacy, status: "active" }] };
}

export type SenderKeyInputs = {
  /** The sender's current validated card, if one was fetched, bound to its id (`bindAgentCard`). */
  card?: AgentCard | null;
  /** Has a card `keys.signing` set ever been observed for this principal? (app state) */
  signingSetObserved?: boolean;
  /** A single key stored at first contact (connection record), if any. */
  storedKey?: Uint8Array | null;
  /** The sender's agent id (`from`), for the genesis bootstrap key. */
  agentId: string;
};

/**
 * The authority rule (docs/key-rotation-rule.md): a card signing set, once observed, is the only
 * key source — no fallback to stored keys or the agentId bootstrap, and an empty set rejects.
 * Before that: a legacy card's key, then a stored first-contact key, then the genesis key.
 */
export function resolveSenderKeys(inputs: SenderKeyInputs): SenderKeys {
  const card = inputs.card ?? null;
  if (card !== null && Array.isArray(card.keys?.signing)) return senderKeysFromCard(card);
  if (inputs.signingSetObserved === true) return { kind: "key-set", source: "card", keys: [] };
  if (card !== null) return senderKeysFromCard(card);
  if (inputs.storedKey instanceof Uint8Array && inputs.storedKey.length === 32) return { kind: "bootstrap", publicKey: inputs.storedKey };
  const genesis = agentIdPublicKey(inputs.agentId);
  return genesis === null ? { kind: "none" } : { kind: "bootstrap", publicKey: genesis };
}

export type EncryptionKey = { keyId: string; publicKey: Uint8Array };

/**
 * The recipient's current X25519 key for sealing: the active `currentEncryptionKeyId` entry, else
 * the first active, in-window X25519 entry. Null means: do not send a confidential intent.
 */
export function recipientEncryptionKey(card: AgentCard, atMs?: number): EncryptionKey | null {
  const entries = card.keys?.encryption ?? [];
  const usable = entries.filter((k) => {
    if (k.status !== "active" || k.revokedAt !== undefined) return false;
    if (atMs === undefined) return true;
    const from = parseTimestamp(k.validFrom);
    const until = k.validUntil === undefined ? Infinity : (parseTimestamp(k.validUntil) ?? -Infinity);
    return from !== null && atMs >= from && atMs <= until;
  });
  const ordered = [...usable.filter((k) => k.keyId === card.currentEncryptionKeyId), ...usable];
  for (const k of ordered) {
    const publicKey = decodeX25519PublicKey(k.publicKeyMultibase);
    if (publicKey !== null) return { keyId: k.keyId, publicKey };
  }
  return null;
}

function orderCandidates(entries: readonly SigningKeyEntry[], atMs: number, hint: string | null): SigningKeyEntry[] {
  const usable = entries.slice(0, MAX_CANDIDATES).filter((e) => e !== null && typeof e === "object" && isKeyUsableAt(e, atMs));
  const hinted = hint === null ? [] : usable.filter((e) => e.keyId === hint).slice(0, 1);
  const rest = usable.filter((e) => !hinted.includes(e));
  return [...hinted, ...rest.filter((e) => e.status === "active"), ...rest.filter((e) => e.status === "retired")];
}

function present(entry: object, key: string): boolean {
  return hasOwn(entry, key) && (entry as Record<string, unknown>)[key] !== undefined;
}

function safe(verifyOne: (publicKey: Uint8Array) => boolean, publicKey: Uint8Array): boolean {
  try {
    return verifyOne(publicKey) === true;
  } catch {
    return false;
  }
}
