import { classifyHost } from "../ink/index.ts";
import { readBounded } from "../security/bounded-read.ts";

/**
 * The only way the node talks to peers (card fetches, deliveries, directories). INK §12/§14 SSRF
 * gate: https only, no credentials in URLs, the hostname classified first, then every address it
 * resolves to checked, and the connection pinned to a checked address (the socket goes to that IP
 * while TLS still verifies the certificate for the hostname), so DNS cannot swap in a private
 * address between check and connect. Redirects are never followed; bodies are capped; every
 * request has a deadline.
 */
export interface PeerHttpOptions {
  /** KITH_ALLOW_PRIVATE_PEERS: lift the address rule (loopback/private peers in tests, home LANs). */
  allowPrivateAddresses: boolean;
  /** Extra CA certificates (PEM) trusted besides the system roots (KITH_TLS_CA_FILE). */
  extraCa?: string[];
  /** DNS resolution; tests map names to loopback. */
  lookup?: (hostname: string) => Promise<Array<{ address: string; family: number }>>;
  /** Name lookups the node itself started (deliveries, the owner's actions) in flight at most (default 16); see `lookups` below. */
  maxLookupsInFlight?: number;
  /** Name lookups strangers caused (`PeerRequest.stranger`) in flight at most (default 4), a pool of their own. */
  maxStrangerLookupsInFlight?: number;
}

export interface PeerRequest {
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  timeoutMs?: number;
  maxBytes?: number;
  /**
   * A stranger's request caused this fetch (set by fetch-budget.ts's gate): its name lookup takes
   * a slot of the strangers' small pool, never one of the node's own.
   */
  stranger?: boolean;
  /** Ends the request early (a job stopping while a long-poll is open): answered as `aborted`. */
  signal?: AbortSignal;
}

export type PeerResponse = { ok: true; status: number; headers: Headers; body: Uint8Array; address: string };

/** `throttled`: refused before any I/O by a budget on fetches strangers cause (fetch-budget.ts). */
export type PeerFailureReason = "invalid_url" | "blocked_host" | "blocked_address" | "dns_failed" | "timeout" | "too_large" | "network_error" | "throttled" | "aborted";
export type PeerFailure = { ok: false; reason: PeerFailureReason; detail: string };

export interface PeerHttp {
  request(url: string, init?: PeerRequest): Promise<PeerResponse | PeerFailure>;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_BYTES = 65_536;
const DEFAULT_MAX_LOOKUPS = 16;
const DEFAULT_MAX_STRANGER_LOOKUPS = 4;

export function createPeerHttp(options: PeerHttpOptions): PeerHttp {
  // node:dns, node:net and node:tls are loaded on the first outbound request, not at start-up
  // (~5 ms together), and tls.rootCertificates (its getter parses the bundled CA list, ~35 ms)
  // is read only when an extra CA is configured.
  const system: Lookup = options.lookup ?? (async (host: string) => (await import("node:dns/promises")).lookup(host, { all: true, verbatim: true }));
  // Two pools (docs/decisions/stranger-fetches.md, DNS): names strangers make the node look up
  // (did:web senders, hints, listings) can never answer, and their lookups hold a slot until they
  // settle; they get a few slots of their own, well under what the runtime resolves at once, so
  // the owner's and the node's own lookups never wait behind them or fail for lack of a slot.
  const ownLookup = lookups(system, options.maxLookupsInFlight ?? DEFAULT_MAX_LOOKUPS);
  const strangerLookup = lookups(system, options.maxStrangerLookupsInFlight ?? DEFAULT_MAX_STRANGER_LOOKUPS);
  const extraCa = options.extraCa && options.extraCa.length > 0 ? options.extraCa : null;
  let ca: Promise<string[] | undefined> | null = null;
  return {
    async request(rawUrl, init = {}) {
      const { isIP } = await import("node:net");
      let url: URL;
      try {
        url = new URL(rawUrl);
      } catch {
        return fail("invalid_url", "not a URL");
      }
      if (url.protocol !== "https:") return fail("invalid_url", "peers are reached over https only");
      if (url.username || url.password) return fail("invalid_url", "credentials in URL");
      const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
      if (!options.allowPrivateAddresses && classifyHost(url.hostname) !== "public") return fail("blocked_host", url.hostname);

      let addresses: Array<{ address: string; family: number }>;
      if (isIP(hostname)) {
        addresses = [{ address: hostname, family: isIP(hostname) }];
      } else {
        try {
          addresses = await withTimeout((init.stranger ? strangerLookup : ownLookup)(hostname), init.timeoutMs ?? DEFAULT_TIMEOUT_MS);
        } catch (e) {
          return fail("dns_failed", e instanceof Error ? e.message : String(e));
        }
      }
      if (addresses.length === 0) return fail("dns_failed", "no addresses");
      if (!options.allowPrivateAddresses) {
        const bad = addresses.find((a) => classifyHost(a.address) !== "public");
        if (bad) return fail("blocked_address", `${hostname} resolves to a non-public address`);
      }
      const pinned = addresses[0]!;
      const target = new URL(url.toString());
      target.hostname = pinned.family === 6 ? `[${pinned.address}]` : pinned.address;

      const trusted = await (ca ??= extraCa ? import("node:tls").then((tls) => [...tls.rootCertificates, ...extraCa]) : Promise.resolve(undefined));
      if (init.signal?.aborted) return fail("aborted", "the request was cancelled");
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), init.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      const cancel = () => controller.abort();
      init.signal?.addEventListener("abort", cancel, { once: true });
      try {
        const response = await fetch(target, {
          method: init.method ?? "GET",
          headers: { ...init.headers, host: url.host, "user-agent": "kith" },
          body: init.body,
          redirect: "manual",
          signal: controller.signal,
          tls: { serverName: isIP(hostname) ? undefined : hostname, ...(trusted ? { ca: trusted } : {}) },
        } as RequestInit);
        const body = await readBounded(response.body, init.maxBytes ?? DEFAULT_MAX_BYTES, response.headers.get("content-length"));
        if (body === null) return fail("too_large", `response exceeds ${init.maxBytes ?? DEFAULT_MAX_BYTES} bytes`);
        return { ok: true, status: response.status, headers: response.headers, body, address: pinned.address };
      } catch (e) {
        if (init.signal?.aborted) return fail("aborted", "the request was cancelled");
        if (controller.signal.aborted) return fail("timeout", `no answer within ${init.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms`);
        return fail("network_error", e instanceof Error ? e.message : String(e));
      } finally {
        clearTimeout(timer);
        init.signal?.removeEventListener("abort", cancel);
      }
    },
  };
}

type Lookup = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

/**
 * Peers name the hosts the node looks up (card URLs, endpoints, did:web), and a system lookup
 * cannot be cancelled: it keeps a resolver thread after the request gave up on it. So a lookup
 * holds its slot until it really settles, not until its request's deadline; concurrent lookups of
 * one name share one; and with every slot taken a new name fails at once (`dns_failed`) instead of
 * queueing behind names that never answer.
 */
function lookups(lookup: Lookup, max: number): Lookup {
  const inFlight = new Map<string, Promise<Array<{ address: string; family: number }>>>();
  return (hostname) => {
    const key = hostname.toLowerCase();
    const shared = inFlight.get(key);
    if (shared) return shared;
    if (inFlight.size >= max) return Promise.reject(new Error(`too many name lookups in flight (${max}); retry later`));
    const pending = Promise.resolve()
      .then(() => lookup(hostname))
      .finally(() => inFlight.delete(key));
    inFlight.set(key, pending);
    return pending;
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    promise.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e) => (clearTimeout(t), reject(e)),
    );
  });
}

function fail(reason: PeerFailureReason, detail: string): PeerFailure {
  return { ok: false, reason, detail };
}
