import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readKeyFile } from "../../src/adapters/key-file.ts";
import {
  checkCardContinuity,
  ed25519Sign,
  nobleStrictVerifier,
  senderKeysFromCard,
  validateAgentCard,
  verifyAgentCardProof,
  verifyWithSenderKeys,
  type AgentCard,
} from "../../src/ink/index.ts";
import { json, ROOT, runKith, startKith, type RunningNode } from "../helpers/process.ts";

// Spawns kith processes: a longer per-test timeout than the suite's 5 s.
setDefaultTimeout(60_000);

const work = mkdtempSync(join(tmpdir(), "kith-key-races-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function init(d: string) {
  expect((await runKith(["init", "--data-dir", d, "--handle", "alice", "--public-url", "https://alice.example.com", "--owner-email", "alice@example.com"])).code).toBe(0);
}

async function ownerToken(node: RunningNode, d: string): Promise<string> {
  const code = (await runKith(["owner", "code", "--data-dir", d])).stdout.trim().split("\n").at(-1)!;
  const res = await fetch(`${node.url}/auth/email/verify`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "alice@example.com", code }) });
  expect(res.status).toBe(200);
  return (await json(res)).accessToken;
}

/**
 * The node starts on what is left, and every key verifies as its status says: each active or
 * retired key's private half is in the file, exactly one key per role is active, no window ends
 * before it starts, the card is signed and continues the first card, an active key verifies a
 * live signature and a revoked one nothing.
 */
async function expectSound(d: string, first: AgentCard) {
  const node = await startKith(["--data-dir", d]);
  try {
    const card = (await json(await fetch(`${node.url}/.well-known/ink/agent.json`))) as AgentCard & Record<string, any>;
    expect(validateAgentCard(card)).toMatchObject({ ok: true });
    expect(verifyAgentCardProof(card)).toMatchObject({ ok: true, kind: "signed" });
    expect(checkCardContinuity(first, card)).toEqual({ ok: true });
    const shown = JSON.parse((await runKith(["keys", "show", "--json", "--data-dir", d])).stdout);
    const held = new Map(readKeyFile(join(d, "agent-key.json"), null).map((k) => [k.keyId, k]));
    for (const role of ["signing", "encryption"]) expect(shown.keys.filter((k: any) => k.role === role && k.status === "active")).toHaveLength(1);
    const now = Date.now();
    for (const k of shown.keys) {
      if (k.validUntil) expect(Date.parse(k.validUntil)).toBeGreaterThanOrEqual(Date.parse(k.validFrom));
      const key = held.get(k.keyId);
      if (k.status !== "revoked") expect({ keyId: k.keyId, held: key?.publicKeyMultibase }).toEqual({ keyId: k.keyId, held: k.publicKeyMultibase });
      if (k.role !== "signing" || !key) continue;
      const message = new TextEncoder().encode(`signed by ${k.keyId}`);
      const signature = ed25519Sign(message, key.privateKey);
      const ok = verifyWithSenderKeys(senderKeysFromCard(card), now, null, (pk) => nobleStrictVerifier(pk, message, signature)).ok;
      expect({ keyId: k.keyId, status: k.status, verifiesNow: ok }).toEqual({ keyId: k.keyId, status: k.status, verifiesNow: k.status === "active" });
    }
  } finally {
    expect(await node.stop()).toBe(0);
  }
}

test("concurrent rotations and revocations through the CLI and the owner API (rotate and revoke) on a running node lose no key", async () => {
  const d = join(work, "race");
  await init(d);
  const node = await startKith(["--data-dir", d]);
  let first: AgentCard;
  try {
    first = await json(await fetch(`${node.url}/.well-known/ink/agent.json`));
    const token = await ownerToken(node, d);
    const initial = JSON.parse((await runKith(["keys", "show", "--json", "--data-dir", d])).stdout).keys as Array<{ keyId: string; role: string }>;
    const sig = initial.find((k) => k.role === "signing")!.keyId;
    const enc = initial.find((k) => k.role === "encryption")!.keyId;
    const http = (keyId: string | null) =>
      fetch(`${node.url}/api/svc/keys/${keyId === null ? "rotate" : `${keyId}/revoke`}`, { method: "POST", headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);
    const cli = (args: string[]) => runKith(["keys", ...args, "--data-dir", d]).then((r) => (r.code === 0 ? 200 : r.stderr.includes("already revoked") ? 409 : r.stderr));
    const outcomes = await Promise.all([
      cli(["rotate"]), cli(["rotate"]), cli(["rotate"]), cli(["revoke", sig]), cli(["revoke", enc]), cli(["rotate"]),
      http(sig), http(enc), http(sig), http(null), http(null),
    ]);
    // Every change either succeeds or is told the key is already revoked; each key is revoked once.
    for (const o of outcomes) expect([200, 409]).toContain(o as number);
    expect(outcomes.filter((o, i) => o === 200 && (i === 3 || i === 6 || i === 8))).toHaveLength(1);
    expect(outcomes.filter((o, i) => o === 200 && (i === 4 || i === 7))).toHaveLength(1);
  } finally {
    expect(await node.stop()).toBe(0);
  }
  await expectSound(d, first!);
});

test("a kill -9 between the key file write and the database commit: the node starts with the unused key and rotates again", async () => {
  const d = join(work, "killed");
  await init(d);
  const started = await startKith(["--data-dir", d]);
  const first: AgentCard = await json(await fetch(`${started.url}/.well-known/ink/agent.json`));
  expect(await started.stop()).toBe(0);
  // A rotation whose process dies right after the new key reached the file, inside the transaction.
  const script = join(work, "die-mid-rotation.ts");
  writeFileSync(script, `
    import { openDatabase } from ${JSON.stringify(join(ROOT, "src/db/client.ts"))};
    import { createKeyVault } from ${JSON.stringify(join(ROOT, "src/adapters/key-vault.ts"))};
    import { rotateSigningKey } from ${JSON.stringify(join(ROOT, "src/domain/identity/rotate-signing-key.ts"))};
    import { createUlidIds } from ${JSON.stringify(join(ROOT, "src/ids.ts"))};
    import { systemClock } from ${JSON.stringify(join(ROOT, "src/clock.ts"))};
    import { createJsonLogger } from ${JSON.stringify(join(ROOT, "src/log.ts"))};
    const dir = process.argv[2];
    const vault = createKeyVault(dir + "/agent-key.json", null);
    const dying = { ...vault, append(key) { vault.append(key); process.kill(process.pid, "SIGKILL"); } };
    rotateSigningKey({ actor: { kind: "system", job: "test" }, db: openDatabase(dir + "/kith.db"), clock: systemClock, ids: createUlidIds(systemClock), log: createJsonLogger({ level: "silent" }), vault: dying });
  `);
  const proc = Bun.spawn([process.execPath, script, d], { cwd: ROOT, stdout: "ignore", stderr: "ignore" });
  expect(await proc.exited).not.toBe(0);
  expect(proc.signalCode).toBe("SIGKILL");
  expect(readKeyFile(join(d, "agent-key.json"), null)).toHaveLength(3);
  await expectSound(d, first);
  expect((await runKith(["keys", "rotate", "--data-dir", d])).code).toBe(0);
  await expectSound(d, first);
});
