import { closeDatabase } from "../db/client.ts";
import { systemClock } from "../domain/context.ts";
import { agentIdOf, findAgentRow } from "../domain/identity/agent.ts";
import { listAgentKeys } from "../domain/identity/list-agent-keys.ts";
import { rotateSigningKey } from "../domain/identity/rotate-signing-key.ts";
import { createUlidIds } from "../domain/ids.ts";
import { DomainError } from "../domain/errors.ts";
import { readStoredSettings } from "../domain/node/settings.ts";
import { createJsonLogger } from "../log.ts";
import { KeyFileError } from "../security/key-file.ts";
import { createKeyVault } from "../security/key-vault.ts";
import { CliError, UsageError, type Command } from "./command.ts";
import { configFrom } from "./init.ts";
import { dataPaths } from "./paths.ts";
import { openExistingStorage, openStorage } from "./storage.ts";

const common = {
  "data-dir": { type: "string", description: "Data directory (default ./kith-data, or KITH_DATA_DIR)", valueName: "dir" },
} as const;

export const keysCommand: Command = {
  name: "keys",
  summary:
    "keys show: list the agent's public keys, key ids and statuses (never private keys).\n" +
    "keys rotate: make a new active signing key; the previous one becomes retired (it still verifies what it " +
    "signed before, never a new live request). The card shows the change at once, also on a running node.",
  usage: "kith keys show [--json] [--data-dir D] | kith keys rotate [--data-dir D] [--passphrase-file F]",
  positionals: true,
  options: {
    ...common,
    json: { type: "boolean", description: "keys show: print JSON" },
    "passphrase-file": { type: "string", description: "keys rotate: file holding the key file passphrase", valueName: "file" },
  },
  run(values, io, positionals) {
    const [sub, ...rest] = positionals;
    if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);
    if (sub === "show") return show(values, io);
    if (sub === "rotate") return rotate(values, io);
    throw new UsageError(sub ? `unknown keys command ${JSON.stringify(sub)} (show, rotate)` : "keys needs a command: show or rotate");
  },
};

function show(values: Record<string, string | boolean | undefined>, io: Parameters<Command["run"]>[1]): number {
  const pre = configFrom(values, io);
  const db = openExistingStorage(dataPaths(pre.dataDir));
  try {
    const config = configFrom(values, io, readStoredSettings(db));
    const agent = findAgentRow(db);
    if (!agent) throw new CliError("this node has no agent yet");
    const ctx = { actor: { kind: "system", job: "keys" } as const, db, clock: systemClock, ids: createUlidIds(systemClock), log: createJsonLogger({ level: "silent" }) };
    const keys = listAgentKeys(ctx).map((k) => ({
      keyId: k.keyId,
      role: k.role,
      status: k.status,
      publicKeyMultibase: k.publicKeyMultibase,
      validFrom: new Date(k.validFrom).toISOString(),
      validUntil: k.validUntil === null ? null : new Date(k.validUntil).toISOString(),
    }));
    const agentId = agentIdOf(agent, config.wordmark);
    if (values.json) {
      io.out(JSON.stringify({ agentId, keySetVersion: agent.keySetVersion, keys }, null, 2));
      return 0;
    }
    io.out(`agent id: ${agentId}   key set version: ${agent.keySetVersion}`);
    for (const k of keys) {
      io.out(`${k.role.padEnd(10)} ${k.status.padEnd(8)} ${k.keyId}  ${k.publicKeyMultibase}  from ${k.validFrom}${k.validUntil ? ` until ${k.validUntil}` : ""}`);
    }
    return 0;
  } finally {
    closeDatabase(db);
  }
}

function rotate(values: Record<string, string | boolean | undefined>, io: Parameters<Command["run"]>[1]): number {
  const pre = configFrom(values, io);
  const paths = dataPaths(pre.dataDir);
  const log = createJsonLogger({ level: "warn" });
  openExistingStorage(paths).$client.close();
  const db = openStorage(paths, { clock: systemClock, log });
  try {
    const config = configFrom(values, io, readStoredSettings(db));
    const vault = createKeyVault(paths.keyFile, config.passphrase);
    const ctx = { actor: { kind: "system", job: "keys-rotate" } as const, db, clock: systemClock, ids: createUlidIds(systemClock), log };
    const result = rotateSigningKey(ctx, { vault });
    io.out(`active signing key: ${result.activeKeyId}`);
    for (const id of result.retiredKeyIds) io.out(`retired:            ${id}`);
    io.out(`key set version:    ${result.keySetVersion}`);
    return 0;
  } catch (e) {
    if (e instanceof KeyFileError) throw new CliError(e.message);
    if (e instanceof DomainError) throw new CliError(e.message);
    throw e;
  } finally {
    closeDatabase(db);
  }
}
