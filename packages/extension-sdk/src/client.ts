// KithClient: one typed method per /ext/v1 endpoint (SPEC "Extension API"), over the signed,
// retrying transport and the single-flight token manager.
import { type ChainResult, verifyAuditChain } from "./audit.ts";
import type { PrivateKeyInput } from "./crypto.ts";
import { type ListEventsOptions, type StreamOptions, listEvents, streamEvents } from "./events.ts";
import { KithError } from "./errors.ts";
import { type TokenStore, TokenManager } from "./token.ts";
import { Transport, type TransportOptions } from "./transport.ts";
import type {
  AuditEntry,
  AuditPage,
  Bridge,
  ChatReply,
  Cluster,
  Connection,
  DecayingContact,
  FeedEvent,
  GraphHeader,
  Identity,
  IntentRequest,
  IntentResult,
  LayerAssignment,
  NetworkHealth,
} from "./types.ts";

export type KithClientOptions = Omit<TransportOptions, "privateKey"> & {
  installationId: string;
  /** The extension's Ed25519 key: 32-byte seed (bytes or base64url) or a WebCrypto key. */
  privateKey: PrivateKeyInput;
  /** The delegation token from the install, if you have one; otherwise the client renews first. */
  token?: string | null;
  tokenStore?: TokenStore | null;
  /** TTL to ask for on renewal, 1–24 hours (the node's default otherwise). */
  tokenTtlHours?: number;
};

type Query = Record<string, string | number | boolean | undefined | null>;

const seg = (id: string): string => encodeURIComponent(id);

export class KithClient {
  readonly transport: Transport;
  readonly tokens: TokenManager;
  readonly installationId: string;

  constructor(readonly options: KithClientOptions) {
    if (typeof options.installationId !== "string" || options.installationId === "") throw new TypeError("installationId is required");
    this.installationId = options.installationId;
    this.transport = new Transport(options);
    this.tokens = new TokenManager({
      renew: () => this.#renew(),
      initial: options.token ?? null,
      store: options.tokenStore ?? null,
      now: options.now ?? Date.now,
    });
    this.transport.tokens = this.tokens;
  }

  async #renew(): Promise<string> {
    const body: Record<string, unknown> = { installationId: this.installationId };
    if (this.options.tokenTtlHours !== undefined) body.ttlHours = this.options.tokenTtlHours;
    const answer = await this.transport.call("POST", "/ext/v1/token", { body, auth: false, retry: true });
    const b = answer.body as { delegationToken?: unknown; token?: unknown } | null;
    const token = typeof b?.delegationToken === "string" ? b.delegationToken : typeof b?.token === "string" ? b.token : null;
    if (token === null) throw new KithError(answer.status, "bad_answer", "POST /ext/v1/token answered without a delegationToken");
    return token;
  }

  async #get<T>(path: string, query?: Query, signal?: AbortSignal): Promise<T> {
    return (await this.transport.call("GET", path, { ...(query ? { query } : {}), ...(signal ? { signal } : {}) })).body as T;
  }

  /** The agent this installation works for, and the grant. */
  identity(): Promise<Identity> {
    return this.#get("/ext/v1/identity");
  }

  readonly connections = {
    /** Contacts in the granted layers (`connections:list`); `limit` 1–200, `offset`. */
    list: (query?: Query): Promise<{ connections: Connection[]; total: number; [m: string]: unknown }> => this.#get("/ext/v1/connections", query),
    /** One contact; NotFoundError when absent or outside the granted layers. */
    get: (contactId: string): Promise<Connection> => this.#get(`/ext/v1/connections/${seg(contactId)}`),
  };

  readonly layers = {
    /** The granted layers and each visible contact's layer and health band (`layers:read`). */
    list: (query?: Query): Promise<{ layers: string[]; assignments: LayerAssignment[]; total: number; [m: string]: unknown }> => this.#get("/ext/v1/layers", query),
    get: (contactId: string): Promise<LayerAssignment> => this.#get(`/ext/v1/layers/${seg(contactId)}`),
  };

  /** Network health per granted layer (`layers:read`). */
  health(): Promise<NetworkHealth> {
    return this.#get("/ext/v1/health");
  }

  /** Contacts at risk of decay in the granted layers (`layers:read`). */
  decaying(query?: Query): Promise<GraphHeader & { decaying: DecayingContact[]; total: number; [m: string]: unknown }> {
    return this.#get("/ext/v1/decaying", query);
  }

  /** Clusters (`graph:read:clusters:summary`); member lists only with `graph:read:clusters:members`. */
  clusters(query?: Query): Promise<GraphHeader & { clusters: Cluster[]; [m: string]: unknown }> {
    return this.#get("/ext/v1/clusters", query);
  }

  /** Sole connectors between clusters (`graph:read:bridges`). */
  bridges(query?: Query): Promise<GraphHeader & { bridges: Bridge[]; atRisk?: number; [m: string]: unknown }> {
    return this.#get("/ext/v1/bridges", query);
  }

  /** The owner's public profile snapshot (`profile:read`). */
  profile(): Promise<{ scope: string; snapshot: Record<string, unknown>; [m: string]: unknown }> {
    return this.#get("/ext/v1/profile");
  }

  readonly events = {
    /** One page of the feed (`events:subscribe`). */
    list: (opts?: ListEventsOptions) => listEvents(this.transport, opts),
    /** Every event from the stored cursor on, as an async iterator; see StreamOptions. */
    stream: (opts?: StreamOptions): AsyncGenerator<FeedEvent, void, undefined> => streamEvents(this.transport, opts),
  };

  readonly intents = {
    /**
     * Send an intent for the owner (`intents:send`). Always carries an Idempotency-Key (a fresh UUID
     * unless given), so a retry after a lost answer cannot send twice. An intent above the granted
     * tier comes back as `{status: "pending_approval", approvalId}` — a result, not an error.
     */
    send: async (intent: IntentRequest, opts: { idempotencyKey?: string; signal?: AbortSignal } = {}): Promise<IntentResult> => {
      const idempotencyKey = opts.idempotencyKey ?? globalThis.crypto.randomUUID();
      const answer = await this.transport.call("POST", "/ext/v1/intents", { body: intent, idempotencyKey, ...(opts.signal ? { signal: opts.signal } : {}) });
      return answer.body as IntentResult;
    },
  };

  readonly audit = {
    /** One page of this installation's audit chain (limit ≤ 200). */
    list: (opts: { limit?: number; offset?: number } = {}): Promise<AuditPage> => this.#get("/ext/v1/audit", { limit: opts.limit, offset: opts.offset }),
    /** Every entry, oldest first, paging by 200. */
    all: async (): Promise<AuditEntry[]> => {
      const out: AuditEntry[] = [];
      for (;;) {
        const page = await this.audit.list({ limit: 200, offset: out.length });
        const rows = page.events ?? [];
        out.push(...rows);
        if (rows.length < 200) return out;
      }
    },
    /**
     * Fetch the whole chain and verify it: sequence +1, each previousEventHash, and — with the
     * agent's keys (given, or from /identity's publicKeyMultibase) — every agentSignature.
     */
    verifyChain: async (opts: { publicKeys?: string[] } = {}): Promise<ChainResult> => {
      let keys = opts.publicKeys;
      if (!keys) {
        const id = await this.identity();
        keys = typeof id.publicKeyMultibase === "string" ? [id.publicKeyMultibase] : [];
      }
      const entries = await this.audit.all();
      return verifyAuditChain(entries, { publicKeys: keys });
    },
  };

  readonly agent = {
    /** Talk to the owner's agent (`agent.chat`). Not retried: a chat turn is not idempotent. */
    chat: async (message: string): Promise<ChatReply> => (await this.transport.call("POST", "/ext/v1/agent/chat", { body: { message } })).body as ChatReply,
  };

  /** Renew the delegation token now (normally automatic). */
  renewToken(): Promise<string> {
    return this.tokens.renew();
  }
}
