import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CONSOLE_CSP } from "../../src/http/surfaces/console.routes.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { json } from "../helpers/process.ts";

/**
 * The console surface (issue 17): the page and its content-hashed assets under /console, a strict
 * CSP, caching, gzip; `/` sends browsers there. The browser test drives the app itself
 * (test/console/console.process.test.ts); the binary test fetches it from the compiled binary.
 */
let node: TestNode;
beforeAll(() => void (node = bootTestApp()));
afterAll(() => node.close());

/** The files the page loads from the node (the inline data: icon is not one). */
const assetsOf = (html: string) => [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((a) => !a.startsWith("data:"));

describe("the console page and its files", () => {
  test("GET /console: the page, with the strict CSP and no-cache; it references only /console/assets/*", async () => {
    const res = await node.request("/console");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("content-security-policy")).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toStartWith("default-src 'self';");
    expect(CONSOLE_CSP).not.toContain("unsafe");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    const html = await res.text();
    const assets = assetsOf(html);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const a of assets) expect(a).toMatch(/^\/console\/assets\/[\w.-]+\.(js|css)$/);
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script: the CSP would block it
    expect(html).toContain('<meta name="kith-runtime" content="checkout">');
  });

  test("every asset: 200, its type, cached for a year (content-hashed), gzip when asked, 304 on its ETag", async () => {
    for (const path of assetsOf(await (await node.request("/console")).text())) {
      const plain = await node.request(path);
      expect({ path, status: plain.status }).toEqual({ path, status: 200 });
      expect(plain.headers.get("content-type")).toBe(path.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8");
      expect(plain.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(plain.headers.get("content-encoding")).toBeNull();
      const body = new Uint8Array(await plain.arrayBuffer());
      const zipped = await node.request(path, { headers: { "accept-encoding": "gzip, br" } });
      expect(zipped.headers.get("content-encoding")).toBe("gzip");
      expect(Bun.gunzipSync(new Uint8Array(await zipped.arrayBuffer()))).toEqual(body);
      const etag = plain.headers.get("etag")!;
      const again = await node.request(path, { headers: { "if-none-match": etag } });
      expect(again.status).toBe(304);
    }
  });

  test("an unknown asset is a JSON 404; /console/ is the page too", async () => {
    for (const path of ["/console/assets/nope.js", "/console/assets/..%2F..%2Fetc%2Fpasswd", "/console/assets/chunk-x.js%00"]) {
      const res = await node.request(path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect((await json(res)).error).toBe("not_found");
    }
    const slash = await node.request("/console/");
    expect([slash.status, slash.headers.get("content-security-policy")]).toEqual([200, CONSOLE_CSP]);
  });

  test("/ sends a browser to the console and keeps its 404 for everyone else", async () => {
    const browser = await node.request("/", { headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" } });
    expect([browser.status, browser.headers.get("location")]).toEqual([303, "/console"]);
    for (const accept of [undefined, "application/json", "*/*"]) {
      const res = await node.request("/", accept ? { headers: { accept } } : {});
      expect({ accept, status: res.status }).toEqual({ accept, status: 404 });
    }
  });

  test("POST /console (Apple's form_post return) becomes a GET with code and state only, each capped", async () => {
    const form = new URLSearchParams({ code: "c-1", state: "s-1", iss: "https://appleid.apple.com", user: '{"email":"x"}', other: "dropped" });
    const res = await node.request("/console", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form.toString() });
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get("location")!, "http://localhost");
    expect(location.pathname).toBe("/console");
    expect(Object.fromEntries(location.searchParams)).toEqual({ code: "c-1", state: "s-1", iss: "https://appleid.apple.com" });
    const long = await node.request("/console", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: `code=${"a".repeat(3000)}&state=s` });
    expect(new URL(long.headers.get("location")!, "http://localhost").searchParams.has("code")).toBe(false);
    // The form is read within 16 KiB: a larger body is not read at all.
    const huge = await node.request("/console", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: `code=c&state=s&pad=${"x".repeat(100_000)}` });
    expect([huge.status, huge.headers.get("location")]).toEqual([303, "/console?"]);
    const junk = await node.request("/console", { method: "POST", headers: { "content-type": "application/json" }, body: "{" });
    expect([junk.status, junk.headers.get("location")]).toEqual([303, "/console?"]);
  });
});
