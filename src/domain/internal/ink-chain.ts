/**
 * The chain of the node's INK audit log for one counterparty (canonical principal). One chain per
 * peer, not one for the node: the audit exchange answers a peer with a +1-continuous slice around
 * its message (AUDIT §4), and a node-wide chain would put other peers' events in that slice
 * (docs/decisions/receipts-and-audit.md).
 */
export function inkChainOf(peerPrincipal: string): string {
  return `ink:${peerPrincipal}`;
}
