/**
 * Senders' nonces are unique within a mailbox (INK §8 scope: canonical principal), apart from the
 * nonces the node records for its own agent: one sender may write to both.
 */
export function mailboxNonceScope(grantId: string, senderPrincipal: string): string {
  return `${grantId}|${senderPrincipal}`;
}
