import type { With } from "../context.ts";
import { resolveInboundSenderKeys, type SenderKeyResolution } from "./internal/resolve-inbound-sender-keys.ts";

/**
 * The keys this node would verify a sender's request with, found as its own receiver finds them
 * (stored card, a connection's card URL, a did:web's document, else the genesis key of a
 * key-derived id), fetched only under the stranger-fetch budgets and only when `network` allows.
 * For a relay that checks requests for another agent (a mailbox, docs/decisions/mailbox.md).
 */
export function resolveSenderKeysFor(ctx: With<"node" | "vault" | "peers">, input: { from: string; principal: string; keyIdHint: string | null; network: boolean }): Promise<SenderKeyResolution> {
  return resolveInboundSenderKeys(ctx, input);
}
