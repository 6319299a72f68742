import { createHash } from "node:crypto";
import { appendFileSync } from "node:fs";
import { relative } from "node:path";

/**
 * With KITH_RECORD_EXCHANGES=<file>, every request a test node answers through the boot helper is
 * written to <file> (one JSON line per test: its file, its position in the file, and each exchange:
 * method, URL, request headers and body, status, response headers and body), so two runs of the
 * suite can be diffed for byte-for-byte answers (scripts/exchange-diff.ts). Off by default: no cost.
 */
const target = process.env.KITH_RECORD_EXCHANGES ?? null;
let pending: Array<Promise<string>> = [];
let lastFile = "";
let position = 0;

export function exchangeLogEnabled(): boolean {
  return target !== null;
}

/** Called with unread copies of the request and response. */
export function logExchange(request: Request, response: Response): void {
  if (!target) return;
  pending.push(
    (async () => {
      const requestBody = request.body ? bytes(await request.arrayBuffer()) : null;
      const responseBody = bytes(await response.arrayBuffer());
      return JSON.stringify({
        method: request.method,
        url: request.url,
        requestHeaders: [...request.headers.entries()].sort(),
        requestBody,
        status: response.status,
        responseHeaders: [...response.headers.entries()].sort(),
        responseBody,
      });
    })(),
  );
}

/** After each test (contract-preload.ts): one line for the exchanges it made, in a stable order. */
export async function flushExchangeLog(): Promise<void> {
  if (!target) return;
  const file = relative(process.cwd(), Bun.main);
  if (file !== lastFile) {
    lastFile = file;
    position = 0;
  }
  position++;
  const done = await Promise.all(pending);
  pending = [];
  if (done.length === 0) return;
  appendFileSync(target, `${JSON.stringify({ file, test: position, exchanges: done.sort() })}\n`);
}

/** Bodies as base64; a large one (a hostile request body) as its length and SHA-256. */
function bytes(body: ArrayBuffer): string {
  const b = Buffer.from(body);
  return b.length <= 16_384 ? b.toString("base64") : `${b.length} bytes, sha256 ${createHash("sha256").update(b).digest("hex")}`;
}
