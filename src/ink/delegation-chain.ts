// Delegation chains (delegation profile, PROFILES.md): 2..4 grant-shaped links, root first, each
// `network.ink.delegation_link` (neutral spelling only), §7-signed by its issuer. Verified in three
// passes, first failure wins: (1) structure — strict schemas, a parent digest on every link but the
// root, position ceilings (24 h for a link that delegates further, 10 min for the last), then per
// seam issuer = parent's subject and parent = digest of the link above (`chain`), and attenuation
// (the parent carries `delegation.extend`, scope only narrows, the window nests); (2) the clock,
// then every signature under an active key of its issuer; (3) the presentation checks of
// grant-kit, where only the last link is replay-checked and every link is revocation-checked.
import { sha256 } from "@noble/hashes/sha2.js";
import * as v from "valibot";
import { toBase64url, utf8 } from "./bytes.ts";
import { type Ed25519Verifier, nobleStrictVerifier } from "./ed25519.ts";
import {
  checkPresentation,
  fail,
  GRANT_MEMBERS,
  type GrantFailure,
  MAX_GRANT_LIFETIME_MS,
  MAX_LINK_LIFETIME_MS,
  type PresentationContext,
  readSigned,
  signedByActiveKey,
  signGrantShaped,
  windowProblem,
} from "./grant-kit.ts";
import { canonicalize } from "./jcs.ts";
import type { SigningKeyEntry } from "./keys.ts";
import { check, strict } from "./schema-kit.ts";
import { parseTimestamp } from "./timestamp.ts";
import type { Wordmark } from "./wordmark.ts";

/** The reserved scope token that lets a link's subject delegate one level further. */
export const DELEGATION_EXTEND = "delegation.extend";
export const MIN_CHAIN_LINKS = 2;
export const MAX_CHAIN_LINKS = 4;
const LINK_DIGEST_DOMAIN = "ink/delegation-link\n";

export const DelegationLink = strict({
  protocol: v.literal("ink/0.1"),
  type: v.literal("network.ink.delegation_link"),
  ...GRANT_MEMBERS,
  /** Digest of the link above (absent on the root): base64url(SHA-256(domain + JCS(parent link))). */
  parent: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{43}$/))),
});
export type DelegationLink = v.InferOutput<typeof DelegationLink>;

export const AuthorizationChain = strict({
  protocol: v.literal("ink/0.1"),
  type: v.literal("network.ink.authorization_chain"),
  links: v.pipe(v.array(v.unknown()), v.minLength(MIN_CHAIN_LINKS), v.maxLength(MAX_CHAIN_LINKS)),
});

export type ChainInput = PresentationContext & {
  chain: unknown;
  /** The published signing keys of `issuer` (the link at `position`, root = 0). */
  issuerKeys: (issuer: string, position: number) => readonly SigningKeyEntry[];
  wordmark: Wordmark;
  verifier?: Ed25519Verifier;
};

export type ChainResult = { ok: true; links: DelegationLink[]; scope: string[] } | GrantFailure;

/** Verify and consume a presented chain; on success `scope` is the last link's (the narrowest). */
export function verifyDelegationChain(input: ChainInput): ChainResult {
  const read = readSigned({ value: input.chain });
  if (!read.ok) return read;
  const wrapper = check(AuthorizationChain, read.value);
  if (!wrapper.ok) return fail("schema", wrapper.issue);
  const raw = wrapper.value.links;
  const links: DelegationLink[] = [];
  for (let i = 0; i < raw.length; i++) {
    const problem = linkShape(raw[i], i, raw.length);
    if (problem !== null) return fail("schema", `links[${i}]: ${problem}`);
    links.push(raw[i] as DelegationLink);
  }
  for (let i = 1; i < links.length; i++) {
    const seam = seamProblem(links[i - 1] as DelegationLink, links[i] as DelegationLink);
    if (seam !== null) return fail(seam.reason, `links[${i}]: ${seam.issue}`);
  }
  if (!Number.isFinite(input.now)) return fail("schema", "verifier clock");
  const verifier = input.verifier ?? nobleStrictVerifier;
  for (let i = 0; i < links.length; i++) {
    const l = links[i] as DelegationLink;
    const keys = safeKeys(input.issuerKeys, l.issuer, i);
    if (!signedByActiveKey(l, keys, input.now, input.wordmark, verifier)) return fail("signature", `links[${i}]: not signed by an active key of ${l.issuer}`);
  }
  const presented = checkPresentation(links, input);
  if (presented !== null) return presented;
  return { ok: true, links, scope: [...(links[links.length - 1] as DelegationLink).scope] };
}

/** The digest a child names as `parent`: base64url(SHA-256(`ink/delegation-link\n` + JCS(link))). */
export function delegationLinkDigest(link: unknown): string | null {
  const jcs = canonicalize(link);
  return jcs.ok ? toBase64url(sha256(utf8(LINK_DIGEST_DOMAIN + jcs.text))) : null;
}

/** Does `child` only narrow `parent`: a subset of its scope, inside its window? (No extend gate.) */
export function isAttenuation(parent: Pick<DelegationLink, "scope" | "issuedAt" | "expiresAt">, child: Pick<DelegationLink, "scope" | "issuedAt" | "expiresAt">): boolean {
  const allowed = new Set(parent.scope);
  if (!child.scope.every((t) => allowed.has(t))) return false;
  const at = (t: string) => parseTimestamp(t) ?? Number.NaN; // NaN compares false: fails closed
  return at(parent.issuedAt) <= at(child.issuedAt) && at(child.expiresAt) <= at(parent.expiresAt);
}

/**
 * Build and sign a link (`parent` given for a non-root link; compute it with
 * `delegationLinkDigest`). `final` picks the lifetime ceiling: 10 minutes for a link that is
 * presented, 24 hours for one that delegates further (the default).
 */
export function signDelegationLink(
  draft: Omit<DelegationLink, "protocol" | "type" | "signature">,
  secretKey: Uint8Array,
  wordmark: Wordmark,
  options: { final?: boolean } = {},
): { ok: true; link: DelegationLink } | GrantFailure {
  const ceiling = options.final === true ? MAX_GRANT_LIFETIME_MS : MAX_LINK_LIFETIME_MS;
  const r = signGrantShaped<DelegationLink>({ protocol: "ink/0.1", type: "network.ink.delegation_link", ...draft }, DelegationLink, ceiling, secretKey, wordmark);
  return r.ok ? { ok: true, link: r.value } : r;
}

function linkShape(value: unknown, position: number, count: number): string | null {
  const r = check(DelegationLink, value);
  if (!r.ok) return r.issue;
  const link = value as DelegationLink;
  if (position === 0 && link.parent !== undefined) return "the root link has no parent";
  if (position > 0 && link.parent === undefined) return "a non-root link names its parent";
  return windowProblem(link, position === count - 1 ? MAX_GRANT_LIFETIME_MS : MAX_LINK_LIFETIME_MS);
}

function seamProblem(parent: DelegationLink, child: DelegationLink): { reason: "chain" | "attenuation"; issue: string } | null {
  if (child.issuer !== parent.subject) return { reason: "chain", issue: "issuer is not the parent's subject" };
  if (child.parent !== delegationLinkDigest(parent)) return { reason: "chain", issue: "parent is not the digest of the link above" };
  if (!parent.scope.includes(DELEGATION_EXTEND)) return { reason: "attenuation", issue: `the parent does not carry ${DELEGATION_EXTEND}` };
  if (!isAttenuation(parent, child)) return { reason: "attenuation", issue: "scope or window wider than the parent's" };
  return null;
}

function safeKeys(resolve: ChainInput["issuerKeys"], issuer: string, position: number): readonly SigningKeyEntry[] {
  try {
    const keys = resolve(issuer, position);
    return Array.isArray(keys) ? keys : [];
  } catch {
    return [];
  }
}
