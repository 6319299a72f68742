/**
 * Outbound HTTP to operator-configured sign-in providers (Google, Apple, the owner's AT Protocol
 * PDS and authorization server). These hosts come from settings, not from peers, so the peer SSRF
 * gate does not apply; what does: a timeout on every call, redirects refused (never followed to
 * somewhere else with a code or a secret), and a cap on what is read back.
 */
import { readBounded } from "../security/bounded-read.ts";
import { OutboundError } from "../security/outbound-errors.ts";

export const OUTBOUND_TIMEOUT_MS = 10_000;
export const OUTBOUND_MAX_BYTES = 256 * 1024;


export interface OutboundResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body (an object), or null when the body is not a JSON object. */
  json: Record<string, unknown> | null;
}

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export async function outboundRequest(url: string, init: RequestInit = {}, options: { fetch?: FetchLike; timeoutMs?: number } = {}): Promise<OutboundResponse> {
  const doFetch = options.fetch ?? ((u, i) => fetch(u, i));
  let response: Response;
  try {
    response = await doFetch(url, {
      ...init,
      redirect: "manual",
      signal: AbortSignal.timeout(options.timeoutMs ?? OUTBOUND_TIMEOUT_MS),
      headers: { accept: "application/json", "user-agent": "kith", ...(init.headers as Record<string, string> | undefined) },
    });
  } catch (e) {
    throw new OutboundError(`${new URL(url).host}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    throw new OutboundError(`${new URL(url).host} answered a redirect (${response.status}); redirects are not followed`, response.status);
  }
  const text = await readCapped(response, OUTBOUND_MAX_BYTES);
  let json: Record<string, unknown> | null = null;
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) json = parsed as Record<string, unknown>;
  } catch {
    json = null;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** A GET that must answer 200 with a JSON object. */
export async function getJson(url: string, options: { fetch?: FetchLike } = {}): Promise<Record<string, unknown>> {
  const res = await outboundRequest(url, { method: "GET" }, options);
  if (res.status !== 200 || !res.json) throw new OutboundError(`GET ${url}: expected 200 with a JSON object, got ${res.status}`, res.status);
  return res.json;
}

async function readCapped(response: Response, max: number): Promise<string> {
  const bytes = await readBounded(response.body, max, response.headers.get("content-length"));
  if (bytes === null) throw new OutboundError(`response larger than ${max} bytes`);
  return new TextDecoder().decode(bytes);
}
