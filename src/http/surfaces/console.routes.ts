import { Elysia } from "elysia";
import type { SurfaceDeps } from "../deps.ts";
import { readRawBody } from "../plugins/raw-body.ts";
import { consoleBundleOf, type ConsoleAsset, type ConsoleBundle, type ConsoleFiles } from "../console-bundle.ts";

export const CONSOLE_PATH = "/console";
export const ASSET_PATH = "/console/assets";

/**
 * Strict policy for the console page (issue 17): its own scripts, styles and API only. Scripts and
 * styles are separate files (no inline code), so nothing needs 'unsafe-inline'; `connect-src 'self'`
 * keeps every request on this node and `frame-ancestors 'none'` stops clickjacking.
 */
export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const PAGE_HEADERS = {
  "content-security-policy": CONSOLE_CSP,
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  // the page is tiny and names its assets by content hash: always revalidate it, cache them forever
  "cache-control": "no-cache",
  vary: "accept-encoding",
};
const ASSET_CACHE = "public, max-age=31536000, immutable";

/**
 * The owner console: a Preact app built from src/console/index.html by Bun's HTML import (the
 * composition root reads its files, `o.files`, on the first request). It is only another client
 * of the owner API; this surface serves its page and files and nothing else. `/` sends a browser
 * (Accept: text/html) to the console; other clients keep their 404.
 */
export function consoleRoutes(deps: SurfaceDeps, o: { files(): Promise<ConsoleFiles> }) {
  let bundle: Promise<ConsoleBundle> | null = null;
  const load = () => (bundle ??= o.files().then((files) => consoleBundleOf(files, ASSET_PATH)).catch((e) => {
    bundle = null; // a failed build (development only) is retried on the next request
    deps.log.error("console bundle failed to load", { cause: e instanceof Error ? e.message : String(e) });
    throw e;
  }));
  return new Elysia({ name: "kith/console" })
    .get(CONSOLE_PATH, async ({ request }) => serve((await load()).page, request, PAGE_HEADERS), { detail: { hide: true } })
    .get(`${ASSET_PATH}/:name`, async ({ params, request }) => {
      const asset = (await load()).assets.get(params.name);
      if (!asset) return notFound(`${ASSET_PATH}/${params.name}`);
      return serve(asset, request, { "cache-control": ASSET_CACHE, "x-content-type-options": "nosniff", vary: "accept-encoding" });
    }, { detail: { hide: true } })
    // Apple answers a sign-in by POSTing code and state to the redirect URI (response_mode=form_post).
    // The console reads them from its query string instead; nothing here trusts or stores them.
    .post(CONSOLE_PATH, async ({ request }) => {
      // Read here, bounded (a form of code and state is well under 16 KiB); anything else is ignored.
      const bytes = (request.headers.get("content-type") ?? "").startsWith("application/x-www-form-urlencoded") ? await readRawBody(request, 16 * 1024) : null;
      const form = new URLSearchParams(bytes ? new TextDecoder().decode(bytes) : "");
      const params = new URLSearchParams();
      for (const key of ["code", "state", "iss", "error"]) {
        const value = form.get(key);
        if (value !== null && value.length <= 2048) params.set(key, value);
      }
      return redirect(`${CONSOLE_PATH}?${params}`);
    }, { parse: "none", detail: { hide: true } })
    .get("/", ({ request }) => {
      if (!(request.headers.get("accept") ?? "").includes("text/html")) return notFound("/");
      return redirect(CONSOLE_PATH);
    }, { detail: { hide: true } });
}

function serve(asset: ConsoleAsset, request: Request, headers: Record<string, string>): Response {
  const common = { ...headers, etag: asset.etag, "content-type": asset.type };
  if (request.headers.get("if-none-match") === asset.etag) return new Response(null, { status: 304, headers: common });
  const gzip = /\bgzip\b/.test(request.headers.get("accept-encoding") ?? "");
  return new Response(gzip ? asset.gzip : asset.body, { headers: gzip ? { ...common, "content-encoding": "gzip" } : common });
}

function redirect(location: string): Response {
  return new Response(null, { status: 303, headers: { location, "cache-control": "no-store" } });
}

function notFound(path: string): Response {
  return new Response(JSON.stringify({ error: "not_found", message: `no route for GET ${path}` }), { status: 404, headers: { "content-type": "application/json" } });
}
