import type { NodeIdentity } from "../context.ts";

/**
 * The base under which peers find this agent's card and endpoint (INK §12 discovery path, §11
 * endpoint): the node's public URL, or the mailbox another node keeps for it (KITH_MAILBOX_URL,
 * docs/decisions/mailbox.md), for a node that has no public address.
 */
export function inboundBaseOf(node: NodeIdentity): string {
  return node.mailboxUrl ?? node.publicUrl;
}
