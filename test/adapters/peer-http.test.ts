import { afterAll, describe, expect, test } from "bun:test";
import { createPeerHttp } from "../../src/adapters/peer-http.ts";
import { testCa, testTls } from "../helpers/tls.ts";

const hits: string[] = [];
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  tls: testTls(),
  async fetch(req) {
    const path = new URL(req.url).pathname;
    hits.push(`${req.method} ${path} host=${req.headers.get("host")}`);
    if (path === "/redirect") return new Response(null, { status: 302, headers: { location: "https://kith.test/secret" } });
    if (path === "/big") return new Response(new ReadableStream({ start(c) { for (let i = 0; i < 100; i++) c.enqueue(new Uint8Array(1024)); c.close(); } }));
    if (path === "/declared-big") return new Response("x".repeat(70_000));
    if (path === "/slow") return new Promise(() => {});
    if (path === "/echo") return new Response(await req.text());
    return Response.json({ ok: true });
  },
});
afterAll(() => server.stop(true));
const port = server.port;
const toLoopback = async () => [{ address: "127.0.0.1", family: 4 }];

describe("peer HTTP: the SSRF gate", () => {
  test("private, loopback, link-local and metadata hosts are refused before any connection", async () => {
    const http = createPeerHttp({ allowPrivateAddresses: false, extraCa: [testCa()] });
    for (const host of ["127.0.0.1", "localhost", "10.0.0.8", "192.168.1.1", "169.254.169.254", "[::1]", "[fd00::1]", "0x7f.1", "2130706433", "foo.localhost"]) {
      const r = await http.request(`https://${host}:${port}/`);
      expect({ host, r: r.ok ? "fetched" : r.reason }).toEqual({ host, r: "blocked_host" });
    }
    expect(hits).toHaveLength(0);
  });

  test("a public name that resolves to a private address is refused (DNS rebinding), even if only one address is private", async () => {
    const rebinding = createPeerHttp({ allowPrivateAddresses: false, extraCa: [testCa()], lookup: async () => [{ address: "93.184.216.34", family: 4 }, { address: "127.0.0.1", family: 4 }] });
    expect(await rebinding.request(`https://peer.kith.test:${port}/`)).toMatchObject({ ok: false, reason: "blocked_address" });
    const v6 = createPeerHttp({ allowPrivateAddresses: false, lookup: async () => [{ address: "::ffff:10.0.0.1", family: 6 }] });
    expect(await v6.request(`https://peer.kith.test:${port}/`)).toMatchObject({ ok: false, reason: "blocked_address" });
    expect(hits).toHaveLength(0);
  });

  test("only https, and no credentials in the URL", async () => {
    const http = createPeerHttp({ allowPrivateAddresses: true, extraCa: [testCa()], lookup: toLoopback });
    expect(await http.request(`http://kith.test:${port}/`)).toMatchObject({ ok: false, reason: "invalid_url" });
    expect(await http.request(`https://user:pw@kith.test:${port}/`)).toMatchObject({ ok: false, reason: "invalid_url" });
    expect(await http.request("not a url")).toMatchObject({ ok: false, reason: "invalid_url" });
  });

  test("with KITH_ALLOW_PRIVATE_PEERS the connection is pinned to the checked address and TLS still verifies the hostname", async () => {
    const http = createPeerHttp({ allowPrivateAddresses: true, extraCa: [testCa()], lookup: toLoopback });
    const r = await http.request(`https://peer.kith.test:${port}/echo`, { method: "POST", body: "hello" });
    expect(r).toMatchObject({ ok: true, status: 200, address: "127.0.0.1" });
    if (r.ok) expect(new TextDecoder().decode(r.body)).toBe("hello");
    expect(hits.at(-1)).toBe(`POST /echo host=peer.kith.test:${port}`);
    const wrongName = createPeerHttp({ allowPrivateAddresses: true, extraCa: [testCa()], lookup: toLoopback });
    expect(await wrongName.request(`https://evil.example:${port}/`)).toMatchObject({ ok: false, reason: "network_error" });
    const untrusted = createPeerHttp({ allowPrivateAddresses: true, lookup: toLoopback });
    expect(await untrusted.request(`https://kith.test:${port}/`)).toMatchObject({ ok: false, reason: "network_error" });
  });

  test("redirects are returned, never followed", async () => {
    const http = createPeerHttp({ allowPrivateAddresses: true, extraCa: [testCa()], lookup: toLoopback });
    const before = hits.length;
    expect(await http.request(`https://kith.test:${port}/redirect`)).toMatchObject({ ok: true, status: 302 });
    expect(hits.slice(before)).toEqual([`GET /redirect host=kith.test:${port}`]);
  });

  test("bodies are capped (streamed or declared), and every request has a deadline", async () => {
    const http = createPeerHttp({ allowPrivateAddresses: true, extraCa: [testCa()], lookup: toLoopback });
    expect(await http.request(`https://kith.test:${port}/big`, { maxBytes: 65_536 })).toMatchObject({ ok: false, reason: "too_large" });
    expect(await http.request(`https://kith.test:${port}/declared-big`, { maxBytes: 65_536 })).toMatchObject({ ok: false, reason: "too_large" });
    expect(await http.request(`https://kith.test:${port}/big`, { maxBytes: 200_000 })).toMatchObject({ ok: true });
    expect(await http.request(`https://kith.test:${port}/slow`, { timeoutMs: 200 })).toMatchObject({ ok: false, reason: "timeout" });
    const hangingDns = createPeerHttp({ allowPrivateAddresses: true, lookup: () => new Promise(() => {}) });
    expect(await hangingDns.request(`https://kith.test:${port}/`, { timeoutMs: 100 })).toMatchObject({ ok: false, reason: "dns_failed" });
  });
});

describe("peer HTTP: name lookups of peer-chosen hosts are bounded", () => {
  test("a lookup that outlives its request's deadline keeps its slot; with every slot taken a new name fails at once; one name is looked up once at a time", async () => {
    const waiting: Array<{ host: string; answer: (a: Array<{ address: string; family: number }>) => void }> = [];
    const lookup = (host: string) => new Promise<Array<{ address: string; family: number }>>((answer) => waiting.push({ host, answer }));
    const http = createPeerHttp({ allowPrivateAddresses: false, lookup, maxLookupsInFlight: 3 });
    const timedOut = await Promise.all([1, 2, 3].map((n) => http.request(`https://slow${n}.example/card`, { timeoutMs: 20 })));
    expect(timedOut.map((r) => (r.ok ? "fetched" : r.reason))).toEqual(["dns_failed", "dns_failed", "dns_failed"]);
    expect(waiting).toHaveLength(3); // the three lookups still run

    const refused = await http.request("https://another.example/card", { timeoutMs: 20 });
    expect(refused).toMatchObject({ ok: false, reason: "dns_failed", detail: expect.stringContaining("too many name lookups") });
    expect(waiting).toHaveLength(3); // refused without a lookup

    const again = http.request("https://slow1.example/other", { timeoutMs: 5_000 }); // joins the lookup of slow1
    await Bun.sleep(10); // let it reach its lookup
    expect(waiting).toHaveLength(3);
    waiting[0]!.answer([{ address: "10.0.0.1", family: 4 }]);
    expect(await again).toMatchObject({ ok: false, reason: "blocked_address" }); // it was answered, then checked
    // a slot is free again
    const next = http.request("https://another.example/card", { timeoutMs: 5_000 });
    await Bun.sleep(10);
    expect(waiting.map((w) => w.host)).toEqual(["slow1.example", "slow2.example", "slow3.example", "another.example"]);
    waiting[3]!.answer([{ address: "192.168.0.1", family: 4 }]);
    expect(await next).toMatchObject({ ok: false, reason: "blocked_address" });
    for (const w of waiting.slice(1, 3)) w.answer([]);
  });

  test("lookups strangers cause have a pool of their own: filling it never takes one of the node's slots, nor joins the node's lookup of the same name", async () => {
    const waiting: string[] = [];
    const answers: Array<() => void> = [];
    const lookup = (host: string) => new Promise<Array<{ address: string; family: number }>>((answer) => (waiting.push(host), answers.push(() => answer([{ address: "10.0.0.1", family: 4 }]))));
    const http = createPeerHttp({ allowPrivateAddresses: false, lookup, maxLookupsInFlight: 2, maxStrangerLookupsInFlight: 2 });
    const strangers = await Promise.all([1, 2, 3].map((n) => http.request(`https://s${n}.example/card`, { timeoutMs: 20, stranger: true })));
    expect(strangers.map((r) => (r.ok ? "fetched" : r.reason))).toEqual(["dns_failed", "dns_failed", "dns_failed"]);
    expect(waiting).toEqual(["s1.example", "s2.example"]); // the third was refused: the strangers' pool is full
    const own = http.request("https://s1.example/card", { timeoutMs: 5_000 }); // the node's own lookup of a name a stranger is looking up
    await Bun.sleep(10);
    expect(waiting).toEqual(["s1.example", "s2.example", "s1.example"]);
    answers[2]!();
    expect(await own).toMatchObject({ ok: false, reason: "blocked_address" }); // answered in its own pool
    for (const answer of answers.slice(0, 2)) answer();
  });
});
