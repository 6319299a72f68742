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
