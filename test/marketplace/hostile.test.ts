import { afterEach, expect, test } from "bun:test";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { acmeManifest } from "../helpers/extensions.ts";
import { ownerToken } from "../helpers/owner.ts";

let node: TestNode;
afterEach(() => node?.close());

test("hostile inputs on every marketplace route answer 4xx {error, message}, never 500", async () => {
  node = bootTestApp();
  const token = await ownerToken(node);
  const owner = { authorization: `Bearer ${token}` };
  const json = { "content-type": "application/json" };
  await node.request("/api/svc/marketplace/settings", { method: "PUT", headers: { ...owner, ...json }, body: JSON.stringify({ autoApprove: true }) });
  await node.request("/marketplace/submit", { method: "POST", headers: { ...owner, ...json }, body: JSON.stringify({ manifest: acmeManifest() }) });
  const long = "x".repeat(5000);
  const raw = (s: string) => s;
  const cases: Array<[string, string, Record<string, string>, string | undefined]> = [
    ["GET", `/marketplace/extensions/${long}`, {}, undefined],
    ["GET", "/marketplace/extensions/%00%ff", {}, undefined],
    ["GET", `/marketplace/extensions?q=${long}`, {}, undefined],
    ["GET", "/marketplace/extensions?q=keep&limit=1e3", {}, undefined],
    ["GET", "/marketplace/extensions?q[]=a&q[]=b", {}, undefined],
    ["POST", "/marketplace/submit", { ...owner, ...json }, raw('{"manifest":')],
    ["POST", "/marketplace/submit", { ...owner, ...json }, raw(`{"manifest":{"a":"${"y".repeat(60_000)}"}}`)],
    ["POST", "/marketplace/submit", { ...owner, "content-type": "text/plain" }, raw("{}")],
    ["POST", "/marketplace/submit", { ...owner, ...json }, raw('{"manifestUrl":"http://127.0.0.1/manifest.json"}')],
    ["POST", "/marketplace/submit", { ...owner, ...json }, raw('{"manifest":{},"manifestUrl":"https://x"}')],
    ["POST", `/api/svc/marketplace/extensions/com.acme.keepintouch/versions/${long}/review`, { ...owner, ...json }, raw('{"decision":"approve"}')],
    ["POST", "/api/svc/marketplace/extensions/com.acme.keepintouch/versions/1.0.0/review", { ...owner, ...json }, raw('{"decision":"approve","extra":1}')],
    ["POST", "/api/svc/marketplace/extensions/com.acme.keepintouch/versions/1.0.0/review", { ...owner, ...json }, raw('{"decision":"reject","reasons":[{"code":"A B","message":"x"}]}')],
    ["PUT", "/api/svc/marketplace/extensions/com.acme.keepintouch/listing", { ...owner, ...json }, raw('{"listingState":null}')],
    ["GET", "/api/svc/marketplace/submissions?state=bogus", owner, undefined],
    ["POST", "/api/svc/marketplace/extensions/com.acme.keepintouch/reviews", { ...owner, ...json }, raw('{"rating":1e400}')],
    ["POST", "/api/svc/marketplace/extensions/com.acme.keepintouch/reviews", { ...owner, ...json }, raw('{"rating":3,"comment":"a\\u0000b"}')],
    ["POST", "/marketplace/extensions/com.acme.keepintouch/reviews", json, raw('{"rating":5}')],
    ["POST", "/marketplace/extensions/com.acme.keepintouch/reviews", { ...json, authorization: "INK-Ed25519 x keyId=y" }, raw(`{"a":"${"z".repeat(10_000)}"}`)],
    ["POST", "/api/svc/marketplace/extensions/com.acme.keepintouch/verify-publisher", {}, undefined],
  ];
  for (const [method, path, headers, body] of cases) {
    const res = await node.request(path, { method, headers, ...(body === undefined ? {} : { body }) });
    const text = await res.text();
    expect([method, path.slice(0, 80), res.status >= 400 && res.status < 500 ? "4xx" : res.status]).toEqual([method, path.slice(0, 80), "4xx"]);
    expect(typeof (JSON.parse(text) as { error?: unknown }).error).toBe("string");
  }
  // FTS syntax in q is plain text: `" OR *:^` searches the word "or".
  const fts = await node.request("/marketplace/extensions?q=%22%20OR%20*%3A%5E%20NEAR(");
  expect([fts.status, ((await fts.json()) as any).results]).toEqual([200, []]);
  // Nothing changed: still one approved version, no review, listed.
  const details = (await (await node.request("/marketplace/extensions/com.acme.keepintouch")).json()) as any;
  expect([details.versions.length, details.reviewStats.count, details.listingState]).toEqual([1, 0, "listed"]);
});
