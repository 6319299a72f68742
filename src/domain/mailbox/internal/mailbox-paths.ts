import { inboundPathOf } from "../../agent/inbound-path-of.ts";

/** Mailboxes live under this base on the mailbox node, so INK's paths apply unchanged below it. */
export const MAILBOX_PREFIX = "/mailbox";

/** The base a home node names as KITH_MAILBOX_URL: its card URL and endpoint are built on it. */
export function mailboxBaseOf(publicUrl: string): string {
  return publicUrl + MAILBOX_PREFIX;
}

/** The endpoint a home's card names on this mailbox (INK §11), and its PATH (the signature base, §6.1). */
export function mailboxEndpointOf(publicUrl: string, agentId: string): { url: string; path: string } {
  const url = mailboxBaseOf(publicUrl) + inboundPathOf(agentId);
  return { url, path: new URL(url).pathname };
}
