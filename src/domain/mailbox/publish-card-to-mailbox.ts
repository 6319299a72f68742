import { eq } from "drizzle-orm";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { transaction } from "../../db/client.ts";
import { mailboxUses } from "../../db/schema/index.ts";
import type { With } from "../context.ts";
import { DomainError } from "../errors.ts";
import { getPublicAgentCard } from "../agent-card/get-public-agent-card.ts";
import { homeRequest } from "./internal/home-request.ts";
import { recordMailboxUse } from "./internal/mailbox-use.ts";

export type PublishToMailboxOutcome = { ok: true; published: boolean } | { ok: false; error: string };

/**
 * This home node's signed card, published to its mailbox when it differs from the last one the
 * mailbox took (a key rotation, a profile or visibility change): the mailbox serves it to peers.
 * A private card is withdrawn (`card: null`): the mailbox answers 404 like the node's own paths.
 */
export async function publishCardToMailbox(ctx: With<"node" | "vault" | "peers">): Promise<PublishToMailboxOutcome> {
  const url = ctx.node.mailboxUrl;
  if (!url) return { ok: false, error: "no mailbox configured" };
  let card: ReturnType<typeof getPublicAgentCard> | null;
  try {
    card = getPublicAgentCard(ctx, null);
  } catch (e) {
    if (!(e instanceof DomainError && e.code === "not_found")) throw e;
    card = null;
  }
  const text = JSON.stringify(card);
  const hash = bytesToHex(sha256(new TextEncoder().encode(text)));
  const use = ctx.db.select({ cardHash: mailboxUses.cardHash }).from(mailboxUses).where(eq(mailboxUses.url, url)).get();
  if (use?.cardHash === hash) return { ok: true, published: false };
  const res = await homeRequest(ctx, "mailbox_card", { card }, { timeoutMs: 10_000 });
  const error = !res.ok ? `${res.reason}: ${res.detail}` : res.status !== 200 ? `HTTP ${res.status}: ${new TextDecoder().decode(res.body).slice(0, 300)}` : null;
  transaction(ctx.db, (tx) => recordMailboxUse(tx, url, error ? { lastError: `card: ${error}` } : { cardHash: hash, cardPublishedAt: ctx.clock.now(), lastError: null }));
  return error ? { ok: false, error } : { ok: true, published: true };
}
