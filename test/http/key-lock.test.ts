import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { closeDatabase, openDatabase, type Db } from "../../src/db/client.ts";
import { createKeyVault, type KeyVault } from "../../src/adapters/key-vault.ts";
import { readKeyFile } from "../../src/adapters/key-file.ts";
import { revokeKey } from "../../src/domain/identity/revoke-key.ts";
import { rotateSigningKey } from "../../src/domain/identity/rotate-signing-key.ts";
import { verifyKeyFile } from "../../src/domain/identity/verify-key-file.ts";
import { listAgentKeys } from "../../src/domain/identity/list-agent-keys.ts";
import { validateAgentCard, verifyAgentCardProof } from "../../src/ink/index.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";
import { json } from "../helpers/process.ts";

/**
 * Key changes are serialised across processes (docs/decisions/key-revocation.md, "One lock"): a
 * second process (here: a second connection and key vault on the same files, as `kith keys` beside
 * a running node) cannot change the keys between this one's key file write and its commit. Without
 * the lock the second change ran in that window and the first then signed with a key it did not
 * hold, or lost the other's private key.
 */
let node: TestNode;
let other: Db | null = null;
afterEach(() => {
  if (other) closeDatabase(other);
  other = null;
  node?.close();
});

/** The same node as another process sees it: its own connection (no busy wait) and its own vault. */
function secondProcess(n: TestNode): ReturnType<TestNode["ctx"]> {
  other = openDatabase(join(n.dir, "kith.db"));
  other.$client.exec("PRAGMA busy_timeout = 0");
  const vault = createKeyVault(n.vault.path, null);
  vault.all();
  return { ...n.ctx(), db: other, vault, actor: { kind: "system", job: "keys" } };
}

/** Runs `during` right after the first change has written its new key to the file. */
function afterKeyFileWrite(vault: KeyVault, during: () => void): KeyVault {
  let ran = false;
  return {
    ...vault,
    append(key) {
      vault.append(key);
      if (!ran) {
        ran = true;
        during();
      }
    },
  };
}

async function expectConsistent(n: TestNode) {
  const vault = createKeyVault(n.vault.path, null);
  verifyKeyFile({ ...n.ctx(), vault });
  const held = new Map(readKeyFile(n.vault.path, null).map((k) => [k.keyId, k.publicKeyMultibase]));
  const keys = listAgentKeys(n.ctx());
  for (const key of keys) {
    if (key.status !== "revoked") expect({ keyId: key.keyId, inFile: held.get(key.keyId) }).toEqual({ keyId: key.keyId, inFile: key.publicKeyMultibase });
    if (key.validUntil !== null) expect(key.validUntil).toBeGreaterThanOrEqual(key.validFrom);
  }
  expect(keys.filter((k) => k.role === "signing" && k.status === "active")).toHaveLength(1);
  expect(keys.filter((k) => k.role === "encryption" && k.status === "active")).toHaveLength(1);
  n.vault.reload();
  const card = await json(await n.request("/.well-known/ink/agent.json"));
  expect(validateAgentCard(card)).toMatchObject({ ok: true });
  expect(verifyAgentCardProof(card)).toMatchObject({ ok: true, kind: "signed" });
}

const changes = {
  rotate: (ctx: ReturnType<TestNode["ctx"]>) => rotateSigningKey(ctx),
  "revoke the active signing key": (ctx: ReturnType<TestNode["ctx"]>) => revokeKey(ctx, { keyId: "sig-alice-0" }),
  "revoke the active encryption key": (ctx: ReturnType<TestNode["ctx"]>) => revokeKey(ctx, { keyId: "enc-alice-0" }),
};

for (const [firstName, first] of Object.entries(changes)) {
  for (const [secondName, second] of Object.entries(changes)) {
    test(`${firstName}, then ${secondName} from another process between the first's key file write and its commit: refused busy, not interleaved`, async () => {
      node = bootTestApp();
      const elsewhere = secondProcess(node);
      let during: unknown = "did not run";
      node.clock.advance(1000);
      first({ ...node.ctx(), vault: afterKeyFileWrite(node.vault, () => {
        node.clock.advance(1000);
        try {
          during = second(elsewhere);
        } catch (e) {
          during = e;
        }
      }) });
      expect(during).toMatchObject({ code: "SQLITE_BUSY" });
      await expectConsistent(node);
      // Once the first has committed, the second runs on what it left (or says why it cannot).
      try {
        second(elsewhere);
      } catch (e) {
        expect((e as Error).message).toContain("already revoked");
      }
      await expectConsistent(node);
    });
  }
}

test("a crash between the key file write and the commit leaves an unused key: the node starts, signs and rotates again", async () => {
  node = bootTestApp();
  const crashing: KeyVault = { ...node.vault, append(key) {
    node.vault.append(key);
    throw new Error("crash");
  } };
  expect(() => rotateSigningKey({ ...node.ctx(), vault: crashing })).toThrow("crash");
  expect(readKeyFile(node.vault.path, null)).toHaveLength(3);
  expect(listAgentKeys(node.ctx())).toHaveLength(2);
  await expectConsistent(node);
  rotateSigningKey(node.ctx());
  await expectConsistent(node);
});
