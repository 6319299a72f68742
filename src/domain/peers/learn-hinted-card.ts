import { decodeEd25519PublicKey } from "../../ink/index.ts";
import type { With } from "../context.ts";
import { type PeerCardUpdate } from "./peer-cards.ts";
import { hasSigningSet } from "./has-signing-set.ts";
import { isCardUrlOf } from "./is-card-url-of.ts";
import { strangerFetches } from "./internal/stranger-fetches.ts";

/**
 * A card the sender pointed to (`Link: <url>; rel="agent-card"`) on a message that authenticated
 * with the genesis key (no card known yet). The header is not covered by any signature and anyone
 * who saw the request could deliver it first with another hint, so the hint may only narrow: the
 * card is kept only when its proof roots in the sender's id (INK §13, basis `proof`: signed by the
 * genesis key or through its rotation chain) and it lists the key that signed the request as
 * active; and only the sender's own INK card URL is fetched (no other path, no query). The caller asks only for a request whose nonce was never seen (a replay fetches
 * nothing) and stores what is returned with the message, in its transaction (so the card is known
 * before the owner can answer the message).
 */
export async function learnHintedCard(
  ctx: With<"node" | "vault" | "peers">,
  input: { from: string; principal: string; hintUrl: string; authenticatedKey: Uint8Array },
): Promise<PeerCardUpdate | null> {
  // Only the sender's own INK card URL, as for listings: a hint is covered by no signature.
  if (!isCardUrlOf(input.hintUrl, input.from)) {
    ctx.log.info("card hint ignored: not an INK card URL of the sender", { peer: input.principal });
    return null;
  }
  const fetched = await strangerFetches(ctx).card({ cardUrl: input.hintUrl, agentId: input.from });
  if (!fetched.ok) {
    ctx.log.info("hinted card not usable", { peer: input.principal, reason: fetched.reason });
    return null;
  }
  if (fetched.basis !== "proof") {
    ctx.peers.fetchBudget.failed(input.hintUrl, ctx.clock.now());
    ctx.log.info("hinted card ignored: its proof does not root in the sender's id", { peer: input.principal, basis: fetched.basis });
    return null;
  }
  const signing = fetched.card.keys?.signing;
  const consistent = Array.isArray(signing)
    ? signing.some((k) => k.status === "active" && sameKey(decodeEd25519PublicKey(k.publicKeyMultibase), input.authenticatedKey))
    : sameKey(decodeEd25519PublicKey(fetched.card.publicKeyMultibase), input.authenticatedKey);
  if (!consistent) {
    ctx.log.warn("hinted card does not list the key that signed the request; ignored", { peer: input.principal });
    return null;
  }
  return { principal: input.principal, agentId: input.from, cardUrl: input.hintUrl, card: { json: fetched.cardJson, signingSet: hasSigningSet(fetched.card) }, refreshAttempt: true };
}

function sameKey(a: Uint8Array | null, b: Uint8Array): boolean {
  return a !== null && a.length === b.length && a.every((x, i) => x === b[i]);
}
