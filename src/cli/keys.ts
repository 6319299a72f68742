import { closeDatabase } from "../db/client.ts";
import type { NodeConfig } from "../config.ts";
import { systemClock } from "../clock.ts";
import type { Ctx } from "../domain/context.ts";
import { findAgentRow } from "../domain/agent/find-agent-row.ts";
import { agentIdOf } from "../domain/agent/agent-id-of.ts";
import { listAgentKeys } from "../domain/identity/list-agent-keys.ts";
import { revokeKey } from "../domain/identity/revoke-key.ts";
import { rotateSigningKey } from "../domain/identity/rotate-signing-key.ts";
import { verifyKeyFile } from "../domain/identity/verify-key-file.ts";
import { createUlidIds } from "../ids.ts";
import { DomainError } from "../domain/errors.ts";
import { readStoredSettings } from "../domain/node/read-stored-settings.ts";
import { createJsonLogger } from "../log.ts";
import { KeyFileError } from "../adapters/key-file.ts";
import { createKeyVault } from "../adapters/key-vault.ts";
import { CliError, cliName, UsageError, type Command, type Io } from "./command.ts";
import { configFrom } from "./init.ts";
import { dataPaths, type DataPaths } from "./paths.ts";
import { requireNode } from "./data-dir.ts";
import { guardStorage, openExistingStorage, openStorage } from "./storage.ts";

const common = {
  "data-dir": { type: "string", description: "Data directory (default ./kith-data, or KITH_DATA_DIR)", valueName: "dir" },
} as const;

export const keysCommand: Command = {
  name: "keys",
  brief: "Show, rotate or revoke the agent's keys (keys show | rotate | revoke <keyId>).",
  summary:
    "keys show: list the agent's public keys, key ids and statuses (never private keys).\n" +
    "keys rotate: make a new active signing key; the previous one becomes retired (it still verifies what it " +
    "signed before, never a new live request). The card shows the change at once, also on a running node.\n" +
    "keys revoke <keyId>: for a compromised key: it never verifies again, not even what it signed before. Revoking " +
    "the active key of a role makes a new one in the same step. The card shows it at once; a new signing key is announced " +
    "to every connected peer (a ping it signs), other peers follow at their next card fetch.",
  usage: "kith keys show [--json] [--data-dir D] | kith keys rotate [--data-dir D] [--passphrase-file F] | kith keys revoke <keyId> [--data-dir D] [--passphrase-file F]",
  positionals: true,
  options: {
    ...common,
    json: { type: "boolean", description: "keys show: print JSON" },
    "passphrase-file": { type: "string", description: "keys rotate/revoke: file holding the key file passphrase", valueName: "file" },
  },
  run(values, io, positionals) {
    const [sub, ...rest] = positionals;
    if (sub === "revoke") {
      if (rest.length !== 1 || rest[0] === "") throw new UsageError(rest.length === 0 ? `keys revoke needs the key id (${cliName()} keys show lists them)` : `unexpected argument ${JSON.stringify(rest[1])}`);
      return revoke(values, io, rest[0]!);
    }
    if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);
    if (sub === "show") return show(values, io);
    if (sub === "rotate") return rotate(values, io);
    throw new UsageError(sub ? `unknown keys command ${JSON.stringify(sub)} (show, rotate, revoke)` : "keys needs a command: show, rotate or revoke");
  },
};

type Values = Record<string, string | boolean | undefined>;

function show(values: Values, io: Io): Promise<number> {
  return withNode(values, io, { job: "keys", write: false }, (ctx, config) => {
    const agent = findAgentRow(ctx.db);
    if (!agent) throw new CliError("this node has no agent yet");
    const keys = listAgentKeys(ctx).map((k) => ({
      keyId: k.keyId,
      role: k.role,
      status: k.status,
      publicKeyMultibase: k.publicKeyMultibase,
      validFrom: new Date(k.validFrom).toISOString(),
      validUntil: k.validUntil === null ? null : new Date(k.validUntil).toISOString(),
      revokedAt: k.revokedAt === null ? null : new Date(k.revokedAt).toISOString(),
    }));
    const agentId = agentIdOf(agent, config.wordmark);
    if (values.json) {
      io.out(JSON.stringify({ agentId, keySetVersion: agent.keySetVersion, keys }, null, 2));
      return 0;
    }
    io.out(`agent id: ${agentId}   key set version: ${agent.keySetVersion}`);
    for (const k of keys) {
      io.out(`${k.role.padEnd(10)} ${k.status.padEnd(8)} ${k.keyId}  ${k.publicKeyMultibase}  from ${k.validFrom}${k.validUntil ? ` until ${k.validUntil}` : ""}${k.revokedAt ? ` revoked ${k.revokedAt}` : ""}`);
    }
    return 0;
  });
}

function rotate(values: Values, io: Io): Promise<number> {
  return withNode(values, io, { job: "keys-rotate", write: true }, (ctx, config, paths) => {
    const withVault = { ...ctx, vault: createKeyVault(paths.keyFile, config.passphrase) };
    verifyKeyFile(withVault);
    const result = rotateSigningKey(withVault);
    io.out(`active signing key: ${result.activeKeyId}`);
    for (const id of result.retiredKeyIds) io.out(`retired:            ${id}`);
    io.out(`key set version:    ${result.keySetVersion}`);
    return 0;
  });
}

function revoke(values: Values, io: Io, keyId: string): Promise<number> {
  return withNode(values, io, { job: "keys-revoke", write: true }, (ctx, config, paths) => {
    // No job runs in this process: a running node's outbox finds the announcement at its next look.
    const withVault = { ...ctx, vault: createKeyVault(paths.keyFile, config.passphrase), wake: { outbox() {}, directoryPusher() {} } };
    verifyKeyFile(withVault);
    const result = revokeKey(withVault, { keyId });
    io.out(`revoked:            ${result.revokedKeyId} (${result.role}, at ${result.revokedAt})`);
    if (result.replacementKeyId) io.out(`new active ${result.role === "signing" ? "signing key:" : "encryption key:"} ${result.replacementKeyId}`);
    io.out(`key set version:    ${result.keySetVersion}`);
    return 0;
  });
}

/**
 * Runs a keys verb on the node's database (migrated first when it writes) with a system context;
 * storage, key-file and domain failures become one line.
 */
export function withNode(values: Values, io: Io, options: { job: string; write: boolean }, work: (ctx: Ctx, config: NodeConfig, paths: DataPaths) => number): Promise<number> {
  const paths = dataPaths(configFrom(values, io).dataDir);
  requireNode(paths, options.write ? "write" : "read");
  const log = createJsonLogger({ level: options.write ? "warn" : "silent" });
  return guardStorage(paths, () => {
    const db = options.write ? openStorage(paths, { clock: systemClock, log }) : openExistingStorage(paths);
    try {
      const config = configFrom(values, io, readStoredSettings(db));
      return work({ actor: { kind: "system", job: options.job }, db, clock: systemClock, ids: createUlidIds(systemClock), log }, config, paths);
    } catch (e) {
      if (e instanceof KeyFileError || e instanceof DomainError) throw new CliError(e.message);
      throw e;
    } finally {
      closeDatabase(db);
    }
  });
}
