// Kith's extension delegation token (SPEC "Delegation token payload", decided in
// docs/decisions/extension-delegation-token.md): one INK delegation link — the root of a chain —
// issued by the agent to the extension's key, carried as `<base64url(JCS(link − signature))>.<signature>`
// (the product's two-segment "payload.signature"). A bearer token for many requests: no replay
// check here (each request carries its own nonce and signature, SPEC checks 5–7) and no
// revocation here (the installation's stored token hash, SPEC checks 3–4).
import { fromBase64url, isPlainObject, toBase64url, utf8 } from "./bytes.ts";
import { DelegationLink } from "./delegation-chain.ts";
import { type Ed25519Verifier, nobleStrictVerifier } from "./ed25519.ts";
import { fail, type GrantFailure, MAX_LINK_LIFETIME_MS, signedByActiveKey, windowProblem } from "./grant-kit.ts";
import { canonicalize } from "./jcs.ts";
import type { SigningKeyEntry } from "./keys.ts";
import { agentIdPublicKey } from "./principal.ts";
import { parseRawBody } from "./raw-body.ts";
import { check } from "./schema-kit.ts";
import { parseTimestamp } from "./timestamp.ts";
import type { Wordmark } from "./wordmark.ts";

/** A token is a few hundred bytes; anything past this is refused before decoding. */
export const MAX_DELEGATION_TOKEN_CHARS = 8192;

/** The token string of a signed link (null if the link is not canonicalizable). */
export function encodeDelegationToken(link: DelegationLink): string | null {
  const { signature, ...payload } = link;
  const jcs = canonicalize(payload);
  return jcs.ok ? `${toBase64url(utf8(jcs.text))}.${signature}` : null;
}

/** The link a token carries, through the raw-body gate; its signature is not checked here. */
export function decodeDelegationToken(token: unknown): { ok: true; link: Record<string, unknown> } | GrantFailure {
  if (typeof token !== "string" || token.length > MAX_DELEGATION_TOKEN_CHARS) return fail("schema", "token: a string of at most 8192 characters");
  const m = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{86})$/.exec(token);
  const bytes = m ? fromBase64url(m[1] as string) : null;
  if (!m || bytes === null) return fail("schema", "token: <base64url payload>.<86-char signature>");
  const gate = parseRawBody(bytes);
  if (!gate.ok) return fail("schema", `token payload: ${gate.reason}`);
  if (!isPlainObject(gate.value) || "signature" in gate.value) return fail("schema", "token payload: a link without its signature");
  return { ok: true, link: { ...gate.value, signature: m[2] } };
}

export type DelegationTokenInput = {
  token: unknown;
  /** The agent's own signing keys: only `active` ones sign (a rotation retires every older token). */
  issuerKeys: readonly SigningKeyEntry[];
  /** The node's own agent id: the audience every token names. */
  audience: string;
  /** Verifier clock, epoch ms. */
  now: number;
  /** The principal whose request signature verified, if already known: must be the subject. */
  presenter?: string | null;
  wordmark: Wordmark;
  verifier?: Ed25519Verifier;
};

export type DelegationTokenResult = { ok: true; link: DelegationLink; subjectKey: Uint8Array } | GrantFailure;

/**
 * SPEC checks 1–2 on INK's rules: decode → a strict root link (no parent) whose subject is a
 * key-derived principal (the extension's key, which then verifies its request signatures) and
 * whose lifetime is at most 24 h → signed by an active agent key at `now` → audience → presenter →
 * window [issuedAt, expiresAt). Reasons are INK's.
 */
export function verifyDelegationToken(input: DelegationTokenInput): DelegationTokenResult {
  if (!Number.isFinite(input.now)) return fail("schema", "verifier clock");
  const decoded = decodeDelegationToken(input.token);
  if (!decoded.ok) return decoded;
  const shape = check(DelegationLink, decoded.link);
  if (!shape.ok) return fail("schema", shape.issue);
  const link = decoded.link as DelegationLink;
  if (link.parent !== undefined) return fail("schema", "a token is a root link (no parent)");
  const subjectKey = agentIdPublicKey(link.subject);
  if (subjectKey === null) return fail("schema", "subject: the key-derived principal of the extension's key");
  const window = windowProblem(link, MAX_LINK_LIFETIME_MS);
  if (window !== null) return fail("schema", window);
  if (!signedByActiveKey(link, input.issuerKeys, input.now, input.wordmark, input.verifier ?? nobleStrictVerifier)) return fail("signature", "not signed by an active key of the agent");
  if (link.audience !== input.audience) return fail("audience", "the token names another audience");
  if (typeof input.presenter === "string" && input.presenter !== "" && input.presenter !== link.subject) return fail("subject", "the presenter is not the token's subject");
  if (input.now < (parseTimestamp(link.issuedAt) as number)) return fail("not_yet_valid", "before issuedAt");
  if (input.now >= (parseTimestamp(link.expiresAt) as number)) return fail("expired", "at or after expiresAt");
  return { ok: true, link, subjectKey };
}
