import type { WriteQueue } from "../../db/write-queue.ts";
import type { Ed25519Verifier } from "../../ink/index.ts";
import type { FetchBudget } from "../../adapters/fetch-budget.ts";
import type { KeyVault } from "../../adapters/key-vault.ts";
import type { PeerHttp } from "../../adapters/peer-http.ts";
import type { MemoryRateLimiter } from "../../security/rate-limit.ts";
import type { NodeIdentity } from "../identity/agent.ts";

/** The collaborators every federation verb needs besides `ctx`. */
export interface FederationDeps {
  node: NodeIdentity;
  vault: KeyVault;
  http: PeerHttp;
  /** Strict Ed25519 verify (native fast path, RFC 8032 pre-checks). */
  verifier: Ed25519Verifier;
  limiter: MemoryRateLimiter;
  /** Budgets and negative cache for the fetches strangers can cause (domain/peers/stranger-fetch.ts). */
  fetchBudget: FetchBudget;
  /** KITH_ALLOW_PRIVATE_PEERS: also skips the SSRF vetting of URL fields inside fetched cards. */
  allowPrivatePeers: boolean;
  /** Nudges the outbox worker after a commit that queued something. */
  wakeOutbox(): void;
  /** Group commit for the inbound hot path: one fsync for the requests of one event-loop turn. */
  writes: WriteQueue;
}
