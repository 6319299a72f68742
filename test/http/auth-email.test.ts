import { afterEach, describe, expect, test } from "bun:test";
import { SMTPServer } from "smtp-server";
import { createSmtpMailer } from "../../src/adapters/smtp-mailer.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { bearer, mailedCode, mailLines, OWNER, postJson } from "../helpers/owner.ts";
import { json } from "../helpers/process.ts";

let node: TestNode;
afterEach(() => node?.close());

const boot = (extra: Parameters<typeof bootTestApp>[0] = {}) => (node = bootTestApp({ ...extra, auth: { ownerEmail: OWNER, ...extra.auth } }));

async function sendCode(email = OWNER, ip?: string): Promise<string> {
  const before = mailLines(node).length;
  const res = await postJson(node, "/auth/email/send", { email }, { ip });
  expect(res.status).toBe(200);
  return mailedCode(node, before + 1);
}

const verify = (code: string, email = OWNER) => postJson(node, "/auth/email/verify", { email, code });

describe("email sign-in: the owner", () => {
  test("gets a code by mail, exchanges it for a TokenPair and calls GET /api/svc", async () => {
    boot();
    const code = await sendCode();
    expect(code).toMatch(/^\d{8}$/);
    const mail = mailLines(node)[0]!;
    expect(mail).toMatchObject({ to: OWNER, subject: "Your Kith sign-in code" });
    const res = await verify(code);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const pair = await json(res);
    expect(Object.keys(pair).sort()).toEqual(["accessToken", "expiresIn", "refreshToken", "tokenType", "userId"]);
    expect(pair).toMatchObject({ tokenType: "Bearer", expiresIn: 900, userId: "owner" });
    const me = await node.request("/api/svc", bearer(pair.accessToken));
    expect(me.status).toBe(200);
    expect(await json(me)).toMatchObject({ agentId: node.agentId, handle: "alice" });
  });

  test("the code is stored only as an HMAC: the database holds no code", async () => {
    boot();
    const code = await sendCode();
    const rows = node.db.$client.query("SELECT * FROM owner_codes").all() as Array<Record<string, unknown>>;
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(code);
  });

  test("typing the code with a space or a hyphen between groups still works", async () => {
    boot();
    const code = await sendCode();
    expect((await verify(`${code.slice(0, 4)} ${code.slice(4)}`)).status).toBe(200);
  });
});

describe("email sign-in: every rejection path", () => {
  test("wrong code → 400 invalid_input; the right code still works afterwards (one try spent)", async () => {
    boot();
    const code = await sendCode();
    const wrong = code === "00000000" ? "11111111" : "00000000";
    const res = await verify(wrong);
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body).toEqual({ error: "invalid_input", message: "the code is wrong, expired or already used" });
    expect((await verify(code)).status).toBe(200);
  });

  test("expired code (10 minutes) → 400", async () => {
    boot();
    const code = await sendCode();
    node.clock.advance(10 * 60 * 1000);
    const res = await verify(code);
    expect(res.status).toBe(400);
    expect((await json(res)).error).toBe("invalid_input");
  });

  test("a code just before its 10 minutes are up still works", async () => {
    boot();
    const code = await sendCode();
    node.clock.advance(10 * 60 * 1000 - 1);
    expect((await verify(code)).status).toBe(200);
  });

  test("reused code → 400 (single use)", async () => {
    boot();
    const code = await sendCode();
    expect((await verify(code)).status).toBe(200);
    const again = await verify(code);
    expect(again.status).toBe(400);
    expect((await json(again)).error).toBe("invalid_input");
  });

  test("too many tries: after 5 wrong codes even the right one is refused", async () => {
    boot();
    const code = await sendCode();
    for (let i = 0; i < 5; i++) {
      const wrong = String((Number(code) + 1 + i) % 100_000_000).padStart(8, "0");
      expect((await verify(wrong)).status).toBe(400);
    }
    expect((await verify(code)).status).toBe(400);
  });

  test("four wrong tries leave the fifth to the right code", async () => {
    boot();
    const code = await sendCode();
    for (let i = 0; i < 4; i++) expect((await verify(String((Number(code) + 1 + i) % 100_000_000).padStart(8, "0"))).status).toBe(400);
    expect((await verify(code)).status).toBe(200);
  });

  test("a newer code replaces the older one", async () => {
    boot();
    const first = await sendCode();
    const second = await sendCode();
    if (first !== second) expect((await verify(first)).status).toBe(400);
    expect((await verify(second)).status).toBe(200);
  });

  test("non-owner email: the same answer as the owner's, nothing stored, nothing sent; no code works for it", async () => {
    boot();
    const owner = await postJson(node, "/auth/email/send", { email: OWNER });
    const stranger = await postJson(node, "/auth/email/send", { email: "mallory@example.com" });
    expect(stranger.status).toBe(owner.status);
    expect(await stranger.text()).toBe(await owner.text());
    expect([...stranger.headers.keys()].sort()).toEqual([...owner.headers.keys()].sort());
    await mailedCode(node, 1);
    await Bun.sleep(10);
    expect(mailLines(node).map((l) => l.to)).toEqual([OWNER]);
    const rows = node.db.$client.query("SELECT email FROM owner_codes").all();
    expect(rows).toEqual([{ email: OWNER }]);
    expect(JSON.stringify(node.db.$client.query("SELECT * FROM rate_limits").all())).not.toContain("mallory");
    // The owner's live code does not work for another address either.
    const code = await mailedCode(node, 1);
    expect((await verify(code, "mallory@example.com")).status).toBe(400);
    expect((await verify(code)).status).toBe(200);
  });

  test("the owner's address in other letter case is the owner's", async () => {
    boot();
    const code = await sendCode("Alice@Example.COM");
    expect((await verify(code, "ALICE@example.com")).status).toBe(200);
  });

  test("invalid email → 400 invalid_input with {error, message}", async () => {
    boot();
    for (const email of ["not-an-email", "a@", "@b.c", "a b@c.d", ""]) {
      const res = await postJson(node, "/auth/email/send", { email });
      expect(res.status).toBe(400);
      const body = await json(res);
      expect(Object.keys(body).sort()).toEqual(["error", "message"]);
      expect(body.error).toBe("invalid_input");
    }
    const missing = await postJson(node, "/auth/email/send", {});
    expect(missing.status).toBe(400);
  });

  test("send is limited per address and client (3 an hour) and per address (6 an hour, durable): 429 with Retry-After, for owner and stranger alike", async () => {
    boot();
    for (const email of [OWNER, "mallory@example.com"]) {
      for (const ip of ["198.51.100.1", "198.51.100.2"]) {
        for (let i = 0; i < 3; i++) expect((await postJson(node, "/auth/email/send", { email }, { ip })).status).toBe(200);
        const perClient = await postJson(node, "/auth/email/send", { email }, { ip });
        expect(perClient.status).toBe(429);
        expect(Number(perClient.headers.get("retry-after"))).toBeGreaterThan(0);
        expect((await json(perClient)).error).toBe("rate_limited");
      }
      const ceiling = await postJson(node, "/auth/email/send", { email }, { ip: "198.51.100.3" });
      expect(ceiling.status).toBe(429);
      expect(Number(ceiling.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    node.clock.advance(60 * 60 * 1000);
    expect((await postJson(node, "/auth/email/send", { email: OWNER }, { ip: "198.51.100.1" })).status).toBe(200);
  });

  test("send is limited per client IP (10 a minute) whatever the address", async () => {
    boot();
    for (let i = 0; i < 10; i++) expect((await postJson(node, "/auth/email/send", { email: `user${i}@example.com` }, { ip: "203.0.113.7" })).status).toBe(200);
    const limited = await postJson(node, "/auth/email/send", { email: "user10@example.com" }, { ip: "203.0.113.7" });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).not.toBeNull();
    expect((await postJson(node, "/auth/email/send", { email: "user10@example.com" }, { ip: "203.0.113.8" })).status).toBe(200);
  });

  test("without an owner email nobody gets a code, the answer is the same, and email is not offered", async () => {
    node = bootTestApp();
    const res = await postJson(node, "/auth/email/send", { email: OWNER });
    expect(res.status).toBe(200);
    await Bun.sleep(10);
    expect(mailLines(node)).toEqual([]);
    expect(await json(await node.request("/auth/providers"))).toEqual({ providers: [] });
  });
});

describe("email delivery over SMTP", () => {
  test("a real SMTP server on loopback receives the code for the owner, and nothing for a stranger", async () => {
    const received: Array<{ to: string[]; data: string }> = [];
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      onData(stream, session, callback) {
        let data = "";
        stream.on("data", (chunk: Buffer) => (data += chunk.toString("utf8")));
        stream.on("end", () => {
          received.push({ to: session.envelope.rcptTo.map((r) => r.address), data });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    const port = (server.server.address() as { port: number }).port;
    const mailer = createSmtpMailer({ url: `smtp://127.0.0.1:${port}`, from: "kith@alice.example.com" });
    try {
      boot({ auth: { mailer } });
      expect((await postJson(node, "/auth/email/send", { email: "mallory@example.com" })).status).toBe(200);
      expect((await postJson(node, "/auth/email/send", { email: OWNER })).status).toBe(200);
      for (let i = 0; i < 500 && received.length === 0; i++) await Bun.sleep(10);
      await Bun.sleep(50);
      expect(received).toHaveLength(1);
      expect(received[0]!.to).toEqual([OWNER]);
      expect(received[0]!.data).toContain("Subject: Your Kith sign-in code");
      const code = received[0]!.data.match(/^\s+(\d{8})\r?$/m)![1]!;
      expect(mailLines(node)).toEqual([]); // delivered, not logged
      expect(JSON.stringify(node.logLines)).not.toContain(code);
      const res = await verify(code);
      expect(res.status).toBe(200);
    } finally {
      mailer.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe("email verify limits", () => {
  test("verify is limited per client (30 an hour, durable, whatever the address); other clients are not affected", async () => {
    boot();
    for (let i = 0; i < 30; i++) {
      node.clock.advance(7_000); // under the 10-a-minute throttle, within the hour
      expect((await postJson(node, "/auth/email/verify", { email: i % 2 ? OWNER : `u${i}@example.com`, code: "00000000" }, { ip: "203.0.113.9" })).status).toBe(400);
    }
    node.clock.advance(7_000);
    const limited = await postJson(node, "/auth/email/verify", { email: OWNER, code: "00000000" }, { ip: "203.0.113.9" });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).not.toBeNull();
    expect((await json(limited)).message).toBe("too many sign-in attempts from this network address; retry later");
    expect((await postJson(node, "/auth/email/verify", { email: OWNER, code: "00000000" }, { ip: "203.0.113.10" })).status).toBe(400);
  });

  test("verify is limited per client IP (10 a minute)", async () => {
    boot();
    for (let i = 0; i < 10; i++) expect((await postJson(node, "/auth/email/verify", { email: `u${i}@example.com`, code: "00000000" }, { ip: "203.0.113.9" })).status).toBe(400);
    expect((await postJson(node, "/auth/email/verify", { email: "u10@example.com", code: "00000000" }, { ip: "203.0.113.9" })).status).toBe(429);
  });
});
