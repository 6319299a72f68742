import { deriveKey } from "../../src/security/node-secret.ts";
import { createOwnerTokens } from "../../src/security/owner-token.ts";
import type { TestNode } from "./boot.ts";
import { json } from "./process.ts";

export const OWNER = "alice@example.com";

/** POST a JSON body through the in-process app; `ip` sets the client address. */
export function postJson(node: TestNode, path: string, body: unknown, options: { ip?: string; headers?: Record<string, string> } = {}): Promise<Response> {
  return node.request(path, {
    method: "POST",
    headers: { "content-type": "application/json", "x-test-remote-address": options.ip ?? "192.0.2.10", ...options.headers },
    body: JSON.stringify(body),
  });
}

/** The mail lines the log mailer wrote (the node has no SMTP in these tests). */
export function mailLines(node: TestNode): Array<Record<string, unknown>> {
  return node.logLines.filter((l) => typeof l.mail === "string");
}

/** Waits for the n-th mailed code (mail leaves after the answer, on a timer) and returns it. */
export async function mailedCode(node: TestNode, nth = 1): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const lines = mailLines(node);
    if (lines.length >= nth) return (lines[nth - 1]!.mail as string).match(/^\s+(\d{8})$/m)![1]!;
    await Bun.sleep(2);
  }
  throw new Error("no sign-in mail was written");
}

export async function signInByEmail(node: TestNode, email = OWNER): Promise<{ accessToken: string; refreshToken: string }> {
  const before = mailLines(node).length;
  const sent = await postJson(node, "/auth/email/send", { email });
  if (sent.status !== 200) throw new Error(`send answered ${sent.status}`);
  const code = await mailedCode(node, before + 1);
  const res = await postJson(node, "/auth/email/verify", { email, code });
  if (res.status !== 200) throw new Error(`verify answered ${res.status}: ${await res.text()}`);
  return json(res);
}

export function bearer(token: string): RequestInit {
  return { headers: { authorization: `Bearer ${token}` } };
}

/**
 * An owner access token minted with the node's test secret, for tests of owner routes that are
 * not about sign-in (sign-in itself is tested through /auth/* in test/http/auth-*.test.ts).
 */
export async function ownerToken(node: TestNode): Promise<string> {
  const tokens = createOwnerTokens({ key: deriveKey(node.secret, "owner-jwt"), publicUrl: node.publicUrl, now: node.clock.now });
  return tokens.sign({ sessionId: "test-session", method: "test", tokenId: `t-${Math.random().toString(36).slice(2)}` });
}

/** A request to the owner API with a valid bearer token; JSON body when given. */
export async function asOwner(node: TestNode, path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${await ownerToken(node)}`, ...init.headers };
  if (init.body !== undefined) headers["content-type"] = "application/json";
  return node.request(path, { method: init.method ?? (init.body === undefined ? "GET" : "POST"), headers, ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}) });
}
