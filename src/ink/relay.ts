// A relay's check of an intent POST it stores for another agent (a mailbox, docs/decisions/mailbox.md):
// everything the receiver checks before decryption that a party without the recipient's keys can
// check — phase 1 of the receiver, then the transport signature under the sender's keys.
import { nobleStrictVerifier, type Ed25519Verifier } from "./ed25519.ts";
import { type KeyStatus, type SenderKeys, verifyWithSenderKeys } from "./keys.ts";
import { reject } from "./receiver-steps.ts";
import type { InboundPending, InboundRejection } from "./receiver-types.ts";

export type RelayAccepted = { ok: true; keyId: string; keyStatus: KeyStatus };

/**
 * Phase 2 for a relay: the transport signature (INK §6.3, live auth) over the body as delivered —
 * the outer envelope when sealed. The body signature and decryption stay the recipient's (it runs
 * `authenticateInbound` on the same bytes later); nothing is recorded here.
 * @example const p = inspectInbound(req, policy); if (p.ok) verifyRelayTransport(p, { keys });
 */
export function verifyRelayTransport(pending: InboundPending, ctx: { keys: SenderKeys; verifier?: Ed25519Verifier; allowRetiredForLiveAuth?: boolean }): RelayAccepted | InboundRejection {
  const verifier = ctx.verifier ?? nobleStrictVerifier;
  const { base, transportSignature } = pending.state;
  const result = verifyWithSenderKeys(ctx.keys, pending.timestampMs, pending.keyIdHint, (pk) => verifier(pk, base, transportSignature), {
    liveAuth: true,
    allowRetiredForLiveAuth: ctx.allowRetiredForLiveAuth === true,
  });
  if (!result.ok) return reject(result.reason);
  return { ok: true, keyId: result.keyId, keyStatus: result.keyStatus };
}
