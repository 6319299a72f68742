// Request signing (SPEC "Authentication" §2; docs/extensions.md "Signing a request").
// The signed message is five lines joined by "\n", no trailing newline:
//   METHOD \n PATH \n NONCE \n TIMESTAMP \n hex(SHA-256(body))
// PATH is the raw request target exactly as sent: the path plus `?query` when there is one, so
// `since`, `limit` and `offset` are covered. An empty body hashes to e3b0c442…b855.
import { type PrivateKeyInput, importPrivateKey, sha256Hex, signEd25519 } from "./crypto.ts";
import { utf8 } from "./encoding.ts";

export const EMPTY_BODY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

export type SignableRequest = {
  method: string;
  /** The request target: path plus `?query`, e.g. `/ext/v1/events?since=12&limit=50`. */
  pathWithQuery: string;
  /** The exact body bytes sent (a string is UTF-8 encoded); absent or empty for GET. */
  body?: Uint8Array | string | null;
  /** Defaults to a random UUID; never reuse one (the node refuses a nonce seen in the last 10 min). */
  nonce?: string;
  /** Defaults to now, as `toISOString()` (the node accepts 300 s in the past, 30 s in the future). */
  timestamp?: string;
};

export type SignedHeaders = {
  "X-Request-Nonce": string;
  "X-Request-Timestamp": string;
  "X-Extension-Signature": string;
};

function bodyBytes(body: SignableRequest["body"]): Uint8Array {
  if (body === undefined || body === null) return new Uint8Array(0);
  return typeof body === "string" ? utf8(body) : body;
}

/** The exact text that is signed, for debugging a 401 `signature_invalid`. */
export async function canonicalString(req: SignableRequest & { nonce: string; timestamp: string }): Promise<string> {
  if (/[\r\n]/.test(req.method + req.pathWithQuery + req.nonce + req.timestamp)) throw new TypeError("method, path, nonce and timestamp may not contain a line break");
  const bodyHash = await sha256Hex(bodyBytes(req.body));
  return `${req.method.toUpperCase()}\n${req.pathWithQuery}\n${req.nonce}\n${req.timestamp}\n${bodyHash}`;
}

/** The three extension headers for one request. Each call makes a new nonce and timestamp. */
export async function signRequest(req: SignableRequest, privateKey: PrivateKeyInput): Promise<SignedHeaders> {
  const nonce = req.nonce ?? globalThis.crypto.randomUUID();
  const timestamp = req.timestamp ?? new Date().toISOString();
  const text = await canonicalString({ ...req, nonce, timestamp });
  const signature = await signEd25519(await importPrivateKey(privateKey), utf8(text));
  return { "X-Request-Nonce": nonce, "X-Request-Timestamp": timestamp, "X-Extension-Signature": signature };
}
