// The shape every conformance handler returns (`expect`-like) and the helpers they share.
import { type Ed25519Verifier, normalizePrincipal } from "../../../src/ink/index.ts";

export type Outcome = { result: "accept" | "reject"; [member: string]: unknown };
export type Handler = (input: Record<string, any>, verifier: Ed25519Verifier) => Outcome;

export const accept = (extra: Record<string, unknown> = {}): Outcome => ({ result: "accept", ...extra });
export const reject = (extra: Record<string, unknown> = {}): Outcome => ({ result: "reject", ...extra });
export const verdict = (ok: boolean): Outcome => (ok ? accept() : reject());

/** The vectors are reference INK: run them in `tulpa` mode. */
export const WORDMARK = "tulpa" as const;

/** The canonical principal keying per-sender state (INK §2.3); malformed ids stay distinct. */
export function principalOf(agentId: string): string {
  const r = normalizePrincipal(agentId);
  return r.ok ? r.principal : `invalid:${agentId}`;
}
