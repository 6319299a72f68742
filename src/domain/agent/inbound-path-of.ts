/** The inbound path, published as the card's `endpoint` path and rebuilt by the receiver (INK §6.1). */
export function inboundPathOf(agentId: string): string {
  return `/ink/v1/${agentId}/intent`;
}
