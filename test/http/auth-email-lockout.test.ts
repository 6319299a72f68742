import { afterEach, describe, expect, test } from "bun:test";
import { issueOwnerCode } from "../../src/domain/owner/issue-owner-code.ts";
import { deriveKey } from "../../src/security/node-secret.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { mailedCode, mailLines, OWNER, postJson } from "../helpers/owner.ts";

/**
 * Issue 12, from the attacker's side: a stranger who knows the owner's address, from as many
 * network addresses as they like, must not keep the owner from signing in by email, and must not
 * get more guesses than docs/decisions/owner-sign-in.md counts.
 */
let node: TestNode;
afterEach(() => node?.close());

const OWNER_IP = "192.0.2.10";
const boot = () => (node = bootTestApp({ auth: { ownerEmail: OWNER } }));
/** Stranger client number i: its own IPv4 address, or its own IPv6 /64. */
const stranger = (i: number) => (i % 2 ? `198.51.${100 + (i % 50)}.${i % 250}` : `2001:db8:${i.toString(16)}::1`);
const wrong = (code: string, i = 0) => String((Number(code) + 1 + i) % 100_000_000).padStart(8, "0");

async function send(ip: string, email = OWNER): Promise<number> {
  return (await postJson(node, "/auth/email/send", { email }, { ip })).status;
}
/** Asks for a code from `ip` and reads it from the mail (earlier mails, sent on a timer, are let out first). */
async function sendAndRead(ip: string): Promise<string> {
  await Bun.sleep(10);
  const before = mailLines(node).length;
  expect(await send(ip)).toBe(200);
  return mailedCode(node, before + 1);
}
async function verify(code: string, ip: string): Promise<number> {
  return (await postJson(node, "/auth/email/verify", { email: OWNER, code }, { ip })).status;
}

describe("email sign-in cannot be turned against the owner (issue 12)", () => {
  test("100 wrong guesses for the owner's address from 50 networks, while the owner's code is live: the owner's code still works", async () => {
    boot();
    const code = await sendAndRead(OWNER_IP);
    for (let i = 0; i < 100; i++) expect(await verify(wrong(code, i), stranger(i % 50))).toBe(400);
    expect(await verify(code, OWNER_IP)).toBe(200);
  });

  test("guesses sprayed before the owner asks for a code change nothing: the owner gets one and signs in", async () => {
    boot();
    for (let i = 0; i < 60; i++) expect(await verify("12345678", stranger(i))).toBe(400);
    expect(await verify(await sendAndRead(OWNER_IP), OWNER_IP)).toBe(200);
  });

  test("a stranger asking for codes for the owner's address does not take away the code the owner holds", async () => {
    boot();
    const code = await sendAndRead(OWNER_IP);
    for (let i = 0; i < 3; i++) expect(await send(stranger(1))).toBe(200);
    expect(await verify(code, OWNER_IP)).toBe(200);
  });

  test("one stranger cannot use up the owner's sends: after its 3 an hour it gets 429, the owner still gets a code and signs in", async () => {
    boot();
    for (let i = 0; i < 3; i++) expect(await send(stranger(1))).toBe(200);
    for (let i = 0; i < 10; i++) expect(await send(stranger(1))).toBe(429);
    const code = await sendAndRead(OWNER_IP);
    expect(await verify(code, OWNER_IP)).toBe(200);
  });

  test("fresh addresses inside one IPv6 /64 are one stranger: 3 codes, then 429, and the owner still gets one", async () => {
    boot();
    for (let i = 1; i <= 3; i++) expect(await send(`2001:db8:7:7::${i}`)).toBe(200);
    for (let i = 4; i <= 40; i++) expect(await send(`2001:db8:7:7:${i.toString(16)}::1`)).toBe(429);
    expect(await verify(await sendAndRead(OWNER_IP), OWNER_IP)).toBe(200);
  });

  test("a `kith owner code` code cannot be spent by strangers: after 200 wrong guesses from 100 networks it still works", async () => {
    boot();
    const issued = issueOwnerCode(node.ctx(), {}, { codeKey: deriveKey(node.secret, "owner-code"), ownerEmail: OWNER });
    expect(issued.code).toMatch(/^\d{12}$/);
    for (let i = 0; i < 200; i++) expect(await verify(String(100_000_000_000 + i), stranger(i % 100))).toBe(400);
    // Nor does a mailed code someone asked for meanwhile retire it.
    expect(await send(stranger(3))).toBe(200);
    expect(await verify(issued.code, "203.0.113.77")).toBe(200);
  });

  test("once the owner is in, the codes strangers had mailed are dead", async () => {
    boot();
    const strangers = await sendAndRead(stranger(1));
    expect(await verify(await sendAndRead(OWNER_IP), OWNER_IP)).toBe(200);
    expect(await verify(strangers, stranger(1))).toBe(400);
  });
});

describe("guessing stays bounded (the numbers docs/decisions/owner-sign-in.md counts with)", () => {
  test("other clients share 3 wrong tries per code: after them even the right code from another client is refused, the requester's own still works", async () => {
    boot();
    const code = await sendAndRead(OWNER_IP);
    for (let i = 0; i < 3; i++) expect(await verify(wrong(code, i), stranger(i))).toBe(400);
    expect(await verify(code, stranger(10))).toBe(400);
    expect(await verify(code, OWNER_IP)).toBe(200);
  });

  test("the owner's own code typed from another network works when nobody else has guessed", async () => {
    boot();
    const code = await sendAndRead(OWNER_IP);
    expect(await verify(code, "203.0.113.200")).toBe(200);
  });

  test("an attacker using every limit for an hour from 20 networks: at most 6 codes, each checked at most 5 + 3 times", async () => {
    boot();
    let attempts = 0;
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 20; i++) {
        const ip = stranger(i);
        await send(ip);
        for (let k = 0; k < 9; k++) {
          attempts++;
          await verify(String(10_000_000 + attempts), ip);
        }
      }
      node.clock.advance(60_000); // fresh per-minute windows; still the same hour
    }
    const codes = node.db.$client.query("SELECT attempts, foreign_attempts AS foreignTries FROM owner_codes").all() as Array<{ attempts: number; foreignTries: number }>;
    expect(codes.length).toBeLessThanOrEqual(6);
    for (const c of codes) {
      expect(c.attempts).toBeLessThanOrEqual(5);
      expect(c.foreignTries).toBeLessThanOrEqual(3);
    }
    expect(attempts).toBe(540);
  }, 30_000); // heavy (thousands of requests, mutations or scrypt runs): slow on a loaded machine
});
