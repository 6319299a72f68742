import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkCardContinuity, validateAgentCard, verifyAgentCardProof } from "../../src/ink/index.ts";
import { json, runKith, startKith } from "../helpers/process.ts";

// Spawns kith processes (or compiles the binary): a longer per-test timeout than the suite's 5 s.
setDefaultTimeout(60_000);

const work = mkdtempSync(join(tmpdir(), "kith-keys-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

test("kith keys revoke on a running node: the card shows the revocation at once, with a new active key", async () => {
  const d = join(work, "node");
  expect((await runKith(["init", "--data-dir", d, "--handle", "alice", "--public-url", "https://alice.example.com"])).code).toBe(0);
  const node = await startKith(["--data-dir", d]);
  try {
    const before = await json(await fetch(`${node.url}/.well-known/ink/agent.json`));
    const active = before.currentSigningKeyId as string;
    const r = await runKith(["keys", "revoke", active, "--data-dir", d]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`revoked:            ${active} (signing, at `);
    const replacement = r.stdout.match(/new active signing key: (\S+)/)?.[1];
    expect(replacement).toMatch(/^sig-/);
    const after = await json(await fetch(`${node.url}/.well-known/ink/agent.json`));
    expect(validateAgentCard(after).ok).toBe(true);
    expect(verifyAgentCardProof(after)).toMatchObject({ ok: true, kind: "signed", keyId: replacement });
    expect(after.keys.signing.find((k: { keyId: string }) => k.keyId === active)).toMatchObject({ status: "revoked" });
    expect(after.keySetVersion).toBe(before.keySetVersion + 1);
    expect(checkCardContinuity(before, after)).toEqual({ ok: true });
    const shown = await runKith(["keys", "show", "--data-dir", d]);
    expect(shown.stdout).toMatch(new RegExp(`signing    revoked  ${active} .* revoked \\d{4}-`));
    const again = await runKith(["keys", "revoke", active, "--data-dir", d]);
    expect({ code: again.code, stderr: again.stderr.trim() }).toEqual({ code: 1, stderr: expect.stringContaining(`kith keys: key ${active} is already revoked`) });
    expect((await runKith(["keys", "revoke", "--data-dir", d])).code).toBe(2);
    expect((await runKith(["keys", "revoke", "sig-unknown", "--data-dir", d])).stderr).toContain('key "sig-unknown" not found');
  } finally {
    expect(await node.stop()).toBe(0);
  }
});
