import { resolveSenderKeys, type AgentCard, type SenderKeys } from "../../../ink/index.ts";
import type { Ctx, With } from "../../context.ts";
import { didWebCardUrl } from "./did-web.ts";
import { strangerFetches } from "./stranger-fetches.ts";
import { ingestStatements, type PeerCardRaw } from "../../../db/ingest-statements.ts";
import { REFRESH_THROTTLE_MS, STALE_CARD_GRACE_MS, type PeerCardRow, type PeerCardUpdate } from "../peer-cards.ts";
import { hasSigningSet } from "../has-signing-set.ts";
import { cardOf } from "../card-of.ts";
import { listsKey } from "./lists-key.ts";

export interface SenderKeyResolution {
  keys: SenderKeys;
  card: AgentCard | null;
  /** What to persist with the message (inside the write transaction). */
  learned: PeerCardUpdate | null;
}

/**
 * Keys for an inbound sender (INK §6.3 order, §10 authority rule): a cached verified card while
 * fresh; otherwise the card fetched again from a base we trust — the URL recorded for this peer,
 * or the host of a did:web — at most once a minute per principal (when stale, when the request
 * names a key id the card does not list, or when no card could be had yet); a fetched card refused
 * for continuity leaves the stored one in use. With no card ever seen, the agent id's genesis key
 * (trust on first use). A base the sender nominates is never used here (INK §2.1).
 *
 * The request is not authenticated yet, so every fetch here is one a stranger causes: it goes
 * through the stranger-fetch budgets, and `network: false` (a replayed nonce, a request that
 * already failed a check needing no key) resolves from what is stored only. A failed fetch leaves
 * a row only for a principal the node already knew (its `lastRefreshAt` throttles the next
 * attempt); made-up ids leave nothing but an entry in the negative cache.
 */
export async function resolveInboundSenderKeys(
  ctx: With<"node" | "vault" | "peers">,
  input: { from: string; principal: string; keyIdHint: string | null; network?: boolean; stored?: PeerCardRaw | null },
): Promise<SenderKeyResolution> {
  const now = ctx.clock.now();
  // `stored`: the caller read the peer card row already, with its other reads (authenticate-intent.ts).
  const raw = input.stored !== undefined ? input.stored : ingestStatements(ctx.db).peerCard.get(input.principal);
  const row: PeerCardRow | null = raw ? { ...raw, signingSetObserved: !!raw.signingSetObserved } : null;
  const stale = row?.cardJson != null && (row.expiresAt ?? 0) < now;
  const cached = parsed(ctx.db, row);
  const unknownKey = cached !== null && input.keyIdHint !== null && !listsKey(cached.card, input.keyIdHint);
  const fetches = strangerFetches(ctx);
  // Inside the throttle, a key id the card does not list and that was never tried for this card
  // gets one fetch (bounded per card URL): a peer that just rotated or revoked its key is heard at
  // once instead of being refused for a minute (review of issue 21; key-revocation.md).
  const throttled =
    row?.lastRefreshAt != null && now - row.lastRefreshAt < REFRESH_THROTTLE_MS && !(input.network !== false && unknownKey && row.cardUrl !== null && fetches.mayRecheck(row.cardUrl, input.keyIdHint!));
  // The common case: a fresh verified card that lists the hinted key. No I/O, no parsing.
  if (cached && !stale && !(unknownKey && !throttled)) return { keys: cached.keys, card: cached.card, learned: null };

  let card = cached?.card ?? null;
  let learned: PeerCardUpdate | null = null;
  // A peer whose card keeps failing (down, refused for continuity) is not asked on every message.
  if (input.network !== false && !throttled && (card === null || stale || unknownKey)) {
    // Prepared (it was a drizzle query built per request: ~25 µs for a connection with no card on record).
    const connection = row?.cardUrl ? null : ingestStatements(ctx.db).connectionCardUrl.get(input.principal);
    // A did:web names its host: its DID document says where the card is (INK §12).
    const url = row?.cardUrl ?? connection?.cardUrl ?? (input.from.startsWith("did:web:") ? await didWebCardUrl(fetches.http, input.from) : null);
    const fetched = url ? await fetches.card({ cardUrl: url, agentId: input.from }) : null;
    if (url && input.keyIdHint !== null) fetches.tried(url, input.keyIdHint);
    if (url && fetched?.ok) {
      card = fetched.card;
      learned = { principal: input.principal, agentId: input.from, cardUrl: url, card: { json: fetched.cardJson, signingSet: hasSigningSet(fetched.card) }, refreshAttempt: true };
    } else if (url && fetched && !fetched.ok) {
      ctx.log.warn("peer card fetch failed", { peer: input.principal, reason: fetched.reason, detail: fetched.detail });
      if (row !== null && fetched.reason !== "throttled") learned = { principal: input.principal, agentId: input.from, cardUrl: url, refreshAttempt: true };
      // A card refused for continuity never replaces the stored one, however old (INK §13).
      if (card !== null && fetched.reason !== "card_continuity" && now - (row?.fetchedAt ?? 0) > STALE_CARD_GRACE_MS) card = null;
    }
  }
  const keys = resolveSenderKeys({ card, signingSetObserved: row?.signingSetObserved ?? false, agentId: input.from });
  return { keys, card, learned };
}

/**
 * Parsed cards and their key sets, per database and principal, reused while the stored card is the
 * same fetch (same time, same bytes). Per database, so two nodes in one process (tests, benches)
 * never read each other's peers.
 */
type ParsedCard = { fetchedAt: number; cardJson: string; signingSetObserved: boolean; card: AgentCard; keys: SenderKeys };
const parsedCards = new WeakMap<Ctx["db"], Map<string, ParsedCard>>();
const MAX_PARSED = 10_000;

function parsed(db: Ctx["db"], row: PeerCardRow | null): { card: AgentCard; keys: SenderKeys } | null {
  if (!row?.cardJson || row.fetchedAt === null) return null;
  let byPrincipal = parsedCards.get(db);
  if (!byPrincipal) parsedCards.set(db, (byPrincipal = new Map()));
  const hit = byPrincipal.get(row.principal);
  if (hit && hit.fetchedAt === row.fetchedAt && hit.signingSetObserved === row.signingSetObserved && hit.cardJson === row.cardJson) return hit;
  const card = cardOf(row);
  if (!card) return null;
  const keys = resolveSenderKeys({ card, signingSetObserved: row.signingSetObserved, agentId: card.agentId });
  const entry = { fetchedAt: row.fetchedAt, cardJson: row.cardJson, signingSetObserved: row.signingSetObserved, card, keys };
  if (byPrincipal.size >= MAX_PARSED) byPrincipal.delete(byPrincipal.keys().next().value!);
  byPrincipal.set(row.principal, entry);
  return entry;
}
