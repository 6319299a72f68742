// Card rotation chains (INK §13): links {keySetVersion, signing, prevKeyId, signature}, each signed
// over `ink/card-rotation\n` + JCS(link minus `signature`). Parsing, signing and the walk shared by
// the card proof (rooted at the genesis key) and the continuity check (rooted at a cached card).
// Choices where the text is open: docs/decisions/ink-card-signature.md.
import { hasOwn, isPlainObject, utf8 } from "./bytes.ts";
import { type Ed25519Verifier, ed25519Sign } from "./ed25519.ts";
import { canonicalize, type CanonicalFailure } from "./jcs.ts";
import { decodeEd25519PublicKey } from "./multibase.ts";
import { decodeSignature, encodeSignature } from "./signature-encoding.ts";

export const CARD_ROTATION_DOMAIN = "ink/card-rotation\n";
/** INK §13: a chain has at most 32 links; a link's set holds 1..32 signing keys. */
export const MAX_ROTATION_LINKS = 32;
export const MAX_LINK_KEYS = 32;

const STATUSES = new Set(["active", "retired", "revoked"]);

/** One key of a link's signing set, as published. */
export type RotationLinkKey = { keyId: string; publicKeyMultibase: string; status: "active" | "retired" | "revoked" };

/** A rotation link as published in a card's `rotationChain`. */
export type RotationLink = {
  keySetVersion: number;
  signing: RotationLinkKey[];
  /** The key of the previous set that signs this link; for link 1 (signed by genesis) not checked. */
  prevKeyId: string | null;
  signature: string;
};

/** A link after parsing: raw keys decoded, the signing input computed. */
export type ParsedLinkKey = { keyId: string; publicKey: Uint8Array; status: "active" | "retired" | "revoked" };
export type ParsedLink = { keySetVersion: number; signing: ParsedLinkKey[]; prevKeyId: unknown; signature: Uint8Array; input: Uint8Array };

/** INK's reason codes for a chain that fails (`invalid_card`: a link or the chain is malformed). */
export type RotationChainFailure =
  | "invalid_card"
  | "chain_too_long"
  | "chain_duplicate_key_id"
  | "chain_noncontiguous_version"
  | "chain_link_signer_not_active"
  | "chain_link_invalid_signature";
export type ChainIssue = { reason: RotationChainFailure; issue: string };

/** The signed text of a link: `ink/card-rotation\n` + JCS(link minus `signature`). */
export function rotationLinkSigningInput(link: unknown): { ok: true; text: string } | { ok: false; reason: CanonicalFailure } {
  if (!isPlainObject(link)) return { ok: false, reason: "not_json" };
  const { signature: _omit, ...rest } = link;
  const jcs = canonicalize(rest);
  return jcs.ok ? { ok: true, text: CARD_ROTATION_DOMAIN + jcs.text } : { ok: false, reason: jcs.reason };
}

/**
 * Sign a rotation link with the key that may sign it (genesis for link 1, else the key named by
 * `prevKeyId`, active in the previous set). Returns the link with `signature` set.
 */
export function signRotationLink(
  link: Omit<RotationLink, "signature">,
  secretKey: Uint8Array,
): { ok: true; link: RotationLink } | { ok: false; reason: CanonicalFailure } {
  const input = rotationLinkSigningInput(link);
  if (!input.ok) return input;
  return { ok: true, link: { ...link, signature: encodeSignature(ed25519Sign(utf8(input.text), secretKey)) } };
}

/** Parse a published chain (array of 1..32 links), or say why it is malformed. */
export function parseRotationChain(chain: unknown): ParsedLink[] | ChainIssue {
  if (!Array.isArray(chain)) return { reason: "invalid_card", issue: "rotationChain is not an array" };
  if (chain.length > MAX_ROTATION_LINKS) return { reason: "chain_too_long", issue: `rotationChain has ${chain.length} links (at most ${MAX_ROTATION_LINKS})` };
  const links: ParsedLink[] = [];
  for (let i = 0; i < chain.length; i++) {
    const link = parseLink(chain[i], i === 0);
    if (!("input" in link)) return { reason: link.reason, issue: `rotationChain[${i}]: ${link.issue}` };
    links.push(link);
  }
  return links;
}

/**
 * Walk links in order: strictly +1 versions; the first link signed by one of the root candidates
 * `firstSigners(link)` returns (the genesis key, a did:web document's keys, a cached card's key;
 * an issue string when there is none); every later link by the key its `prevKeyId` names, which
 * must be `active` in the previous link's set. Null when every signature verifies.
 */
export function walkLinks(
  links: readonly ParsedLink[],
  firstSigners: (link: ParsedLink) => readonly Uint8Array[] | string,
  verifier: Ed25519Verifier,
  label = (i: number) => `rotationChain[${i}]`,
): ChainIssue | null {
  for (let i = 0; i < links.length; i++) {
    const link = links[i] as ParsedLink;
    if (i === 0) {
      const roots = firstSigners(link);
      // Link 1 rooting on no candidate fails as its signature (INK's link-1 reason, vector
      // chain-link-1-unknown-member-mutated-reject).
      if (typeof roots === "string") return { reason: "chain_link_invalid_signature", issue: `${label(i)}: ${roots}` };
      if (!roots.some((k) => verifier(k, link.input, link.signature))) return { reason: "chain_link_invalid_signature", issue: `${label(i)}: signature does not verify under a root key` };
      continue;
    }
    const prev = links[i - 1] as ParsedLink;
    if (link.keySetVersion !== prev.keySetVersion + 1) {
      return { reason: "chain_noncontiguous_version", issue: `${label(i)}: keySetVersion ${link.keySetVersion} does not follow ${prev.keySetVersion}` };
    }
    const signer = prev.signing.find((k) => k.keyId === link.prevKeyId);
    if (signer === undefined || signer.status !== "active") {
      return { reason: "chain_link_signer_not_active", issue: `${label(i)}: prevKeyId ${JSON.stringify(link.prevKeyId)} is not an active key of the previous link` };
    }
    if (!verifier(signer.publicKey, link.input, link.signature)) return { reason: "chain_link_invalid_signature", issue: `${label(i)}: signature does not verify` };
  }
  return null;
}

/** Same signing set by keyId, raw 32-byte key and status (INK §13 head binding); order ignored. */
export function sameSigningSet(a: readonly ParsedLinkKey[], b: readonly ParsedLinkKey[]): boolean {
  if (a.length !== b.length) return false;
  const byId = new Map(b.map((k) => [k.keyId, k]));
  if (byId.size !== b.length) return false;
  return a.every((k) => {
    const other = byId.get(k.keyId);
    return other !== undefined && other.status === k.status && equalBytes(other.publicKey, k.publicKey);
  });
}

/** A card's `keys.signing` as link keys; null when an entry is not {keyId, Ed25519 key, status}. */
export function cardSigningSet(card: Record<string, unknown>): ParsedLinkKey[] | null {
  const keys = card.keys;
  if (!isPlainObject(keys) || !Array.isArray(keys.signing)) return null;
  const out: ParsedLinkKey[] = [];
  for (const entry of keys.signing) {
    const k = parseKey(entry);
    if (typeof k === "string") return null;
    out.push(k);
  }
  return out;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function parseLink(value: unknown, first: boolean): ParsedLink | ChainIssue {
  const malformed = (issue: string): ChainIssue => ({ reason: "invalid_card", issue });
  if (!isPlainObject(value)) return malformed("not an object");
  const version = value.keySetVersion;
  if (typeof version !== "number" || !Number.isSafeInteger(version) || version < 1) return malformed("keySetVersion is not a positive integer");
  if (!Array.isArray(value.signing) || value.signing.length < 1 || value.signing.length > MAX_LINK_KEYS) {
    return malformed(`signing must hold 1..${MAX_LINK_KEYS} keys`);
  }
  const signing: ParsedLinkKey[] = [];
  for (const entry of value.signing) {
    const k = parseKey(entry);
    if (typeof k === "string") return malformed(`signing: ${k}`);
    // A committed set that repeats a keyId makes the next link's signer ambiguous.
    if (signing.some((s) => s.keyId === k.keyId)) return { reason: "chain_duplicate_key_id", issue: `signing: duplicate keyId ${k.keyId}` };
    signing.push(k);
  }
  if (!hasOwn(value, "prevKeyId")) return malformed("prevKeyId is missing");
  const prev = value.prevKeyId;
  // Link 1 is signed by a root key whatever it names (a string, or null); later links name a key.
  const prevOk = first ? prev === null || (typeof prev === "string" && prev.length <= 128) : typeof prev === "string" && prev.length >= 1 && prev.length <= 128;
  if (!prevOk) return malformed("prevKeyId is not a key id");
  const signature = decodeSignature(value.signature);
  if (signature === null) return malformed("signature is not an 86-char base64url Ed25519 signature");
  const input = rotationLinkSigningInput(value);
  if (!input.ok) return malformed(`not canonicalizable (${input.reason})`);
  return { keySetVersion: version, signing, prevKeyId: prev, signature, input: utf8(input.text) };
}

function parseKey(entry: unknown): ParsedLinkKey | string {
  if (!isPlainObject(entry)) return "key entry is not an object";
  const { keyId, publicKeyMultibase, status } = entry;
  if (typeof keyId !== "string" || keyId.length < 1 || keyId.length > 128) return "keyId must be 1..128 characters";
  if (typeof status !== "string" || !STATUSES.has(status)) return `key ${keyId}: status must be active, retired or revoked`;
  const publicKey = decodeEd25519PublicKey(publicKeyMultibase);
  if (publicKey === null) return `key ${keyId}: publicKeyMultibase is not an Ed25519 key`;
  return { keyId, publicKey, status: status as ParsedLinkKey["status"] };
}
