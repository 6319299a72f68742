import { afterEach, describe, expect, test } from "bun:test";
import { createDeviceTokens, DEVICE_COOKIE, DEVICE_TOKEN_TTL_SECONDS } from "../../src/security/device-token.ts";
import { deriveKey } from "../../src/security/node-secret.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { mailedCode, mailLines, OWNER, postJson } from "../helpers/owner.ts";
import { json } from "../helpers/process.ts";

/**
 * Issue 12: strangers must not deny the owner a fresh emailed code. Two clients can hold the
 * owner's address at its ceiling (6 sends an hour); a device the owner signed in from carries a
 * device cookie that takes it out of the address's limits, with limits of its own
 * (docs/decisions/owner-sign-in.md, "Device cookies").
 */
let node: TestNode;
afterEach(() => node?.close());

const OWNER_IP = "192.0.2.10";
const stranger = (i: number) => `198.51.100.${i}`;
const boot = (publicUrl?: string) => (node = bootTestApp({ auth: { ownerEmail: OWNER }, ...(publicUrl ? { publicUrl } : {}) }));

async function send(ip: string, cookie?: string): Promise<Response> {
  return postJson(node, "/auth/email/send", { email: OWNER }, { ip, headers: cookie ? { cookie } : {} });
}
async function sendAndRead(ip: string, cookie?: string): Promise<string> {
  await Bun.sleep(10);
  const before = mailLines(node).length;
  expect((await send(ip, cookie)).status).toBe(200);
  return mailedCode(node, before + 1);
}
async function verify(code: string, ip: string, cookie?: string): Promise<Response> {
  return postJson(node, "/auth/email/verify", { email: OWNER, code }, { ip, headers: cookie ? { cookie } : {} });
}
/** The `name=value` of the device cookie a response set. */
function deviceCookieOf(res: Response): string {
  const header = res.headers.get("set-cookie") ?? "";
  expect(header).toStartWith(`${DEVICE_COOKIE}=`);
  return header.split(";")[0]!;
}
/** Signs the owner in from OWNER_IP once: the device cookie it gets. */
async function signedInDevice(): Promise<string> {
  const res = await verify(await sendAndRead(OWNER_IP), OWNER_IP);
  expect(res.status).toBe(200);
  return deviceCookieOf(res);
}
/** Two strangers' networks use up what is left of the address's 6 sends of the hour. */
async function exhaustCeiling() {
  let sent = 0;
  for (const ip of [stranger(1), stranger(2)]) for (let i = 0; i < 3; i++) if ((await send(ip)).status === 200) sent++;
  expect(sent).toBeGreaterThanOrEqual(5);
  expect((await send(stranger(3))).status).toBe(429);
}

describe("device cookies: strangers cannot deny the owner a code", () => {
  test("with the address at its ceiling, a device the owner signed in from still gets a code and signs in", async () => {
    boot();
    const cookie = await signedInDevice();
    await exhaustCeiling();
    expect((await send("203.0.113.9")).status).toBe(429); // a brand-new device: `kith owner code` is its way in
    const code = await sendAndRead("203.0.113.9", cookie); // the owner's device, on another network
    const res = await verify(code, "203.0.113.9", cookie);
    expect(res.status).toBe(200);
    expect(deviceCookieOf(res)).toStartWith(`${DEVICE_COOKIE}=${cookie.split("=")[1]!.split(".")[0]}.`); // same device, renewed
  });

  test("the cookie is HttpOnly, SameSite=Strict, only for /auth, 180 days; Secure when the node is on https", async () => {
    boot("https://alice.example.com");
    const res = await verify(await sendAndRead(OWNER_IP), OWNER_IP);
    const attributes = (res.headers.get("set-cookie") ?? "").split(";").slice(1).map((a) => a.trim()).sort();
    expect(attributes).toEqual(["HttpOnly", `Max-Age=${DEVICE_TOKEN_TTL_SECONDS}`, "Path=/auth", "SameSite=Strict", "Secure"]);
  });

  test("a refresh renews the device cookie (every sign-in method ends in refreshes)", async () => {
    boot();
    const cookie = await signedInDevice();
    const { refreshToken } = await json(await verify(await sendAndRead(OWNER_IP, cookie), OWNER_IP, cookie));
    const res = await postJson(node, "/auth/refresh", { refreshToken }, { ip: OWNER_IP, headers: { cookie } });
    expect(res.status).toBe(200);
    expect(deviceCookieOf(res).split(".")[0]).toBe(cookie.split(".")[0]!);
  });

  test("a browser session (X-Kith-Session: cookie) gets both cookies; its cookie refresh renews the device", async () => {
    boot();
    const code = await sendAndRead(OWNER_IP);
    const res = await postJson(node, "/auth/email/verify", { email: OWNER, code }, { ip: OWNER_IP, headers: { "x-kith-session": "cookie" } });
    expect(res.status).toBe(200);
    const set = res.headers.getSetCookie();
    expect(set.map((c) => c.split("=")[0]).sort()).toEqual([DEVICE_COOKIE, "kith_session"]);
    const device = set.find((c) => c.startsWith(`${DEVICE_COOKIE}=`))!.split(";")[0]!;
    const session = set.find((c) => c.startsWith("kith_session="))!.split(";")[0]!;
    const refreshed = await postJson(node, "/auth/session/refresh", {}, { ip: OWNER_IP, headers: { "x-kith-session": "cookie", cookie: `${session}; ${device}` } });
    expect(refreshed.status).toBe(200);
    const renewed = refreshed.headers.getSetCookie().find((c) => c.startsWith(`${DEVICE_COOKIE}=`));
    expect(renewed?.split(".")[0]).toBe(device.split(".")[0]!);
  });

  test("a device has its own limit, 3 codes an hour, that strangers' sends do not touch and that does not spend the address's ceiling", async () => {
    boot();
    const cookie = await signedInDevice();
    for (let i = 0; i < 3; i++) expect((await send(OWNER_IP, cookie)).status).toBe(200);
    const refused = await send(OWNER_IP, cookie);
    expect(refused.status).toBe(429);
    expect(await json(refused)).toMatchObject({ error: "rate_limited", message: expect.stringContaining("for this device") });
    // The owner's first code (before the cookie) counted; the device's three did not: 5 left for strangers.
    for (let i = 0; i < 5; i++) expect((await send(stranger(10 + Math.floor(i / 3)))).status).toBe(200);
    expect((await send(stranger(20))).status).toBe(429);
  });

  test("forged, altered, expired and foreign cookies count as none: the ceiling applies", async () => {
    boot();
    const cookie = await signedInDevice();
    await exhaustCeiling();
    const [name, value] = cookie.split("=") as [string, string];
    const [id, issued, mac] = value.split(".") as [string, string, string];
    const otherNode = createDeviceTokens({ key: deriveKey(new Uint8Array(32).fill(7), "owner-device"), now: node.clock.now });
    const old = createDeviceTokens({ key: deriveKey(node.secret, "owner-device"), now: () => node.clock.now() - (DEVICE_TOKEN_TTL_SECONDS + 10) * 1000 });
    for (const forged of [
      `${name}=${id}x.${issued}.${mac}`,
      `${name}=${id}.${Number(issued) + 1}.${mac}`,
      `${name}=${id}.${issued}.${mac.slice(0, -2)}AA`,
      `${name}=${id}.${issued}.${mac}.x`,
      `${name}=${otherNode.issue(id)}`,
      `${name}=${old.issue(id)}`,
      `${name}=`,
      `other=${value}`,
    ]) {
      expect({ forged, status: (await send(OWNER_IP, forged)).status }).toEqual({ forged, status: 429 });
    }
  });

  test("strangers on the owner's network spend neither the device's verify attempts nor the tries of the device's code", async () => {
    boot();
    const cookie = await signedInDevice();
    const code = await sendAndRead(OWNER_IP, cookie);
    // 29 wrong guesses from the owner's own network address (after its sign-in) use up that network's 30 an hour...
    for (let i = 0; i < 29; i++) {
      if (i % 10 === 0) node.clock.advance(61_000); // past the in-memory 10 a minute per IP
      expect((await verify(String(10_000_000 + i), OWNER_IP)).status).toBe(400);
    }
    expect((await verify(code, OWNER_IP)).status).toBe(429);
    // ...and the 3 tries others share on the device's code; the device still signs in with it (a minute
    // later: the in-memory 10 a minute per IP address is the one limit a stranger on the same address shares).
    node.clock.advance(61_000);
    expect((await verify(code, OWNER_IP, cookie)).status).toBe(200);
  });
});
