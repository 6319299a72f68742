import { existsSync } from "node:fs";
import { closeDatabase } from "../db/client.ts";
import { systemClock } from "../clock.ts";
import { agentIdOf } from "../domain/agent/agent-id-of.ts";
import { createUlidIds } from "../ids.ts";
import { ConfigError, resolveConfig } from "../config.ts";
import { createJsonLogger } from "../log.ts";
import { createKeyVault } from "../adapters/key-vault.ts";
import { CliError, UsageError, type Command } from "./command.ts";
import { cardUrlOf, checkIdentityInput, initializeIdentity, systemTimeZone } from "./identity.ts";
import { createDataDir } from "./create-data-dir.ts";
import { checkDataDir, nodeState } from "./data-dir.ts";
import { dataPaths, type DataPaths } from "./paths.ts";
import { nodeSecret } from "./sign-in.ts";
import { guardStorage, openStorage } from "./storage.ts";

export const initCommand: Command = {
  name: "init",
  summary:
    "Create a node: the data directory, the agent's keys (agent-key.json, mode 0600) and the database. " +
    "Refuses to overwrite an existing identity. Prints the agent id and the card URL.",
  usage: "kith init --handle H --public-url URL [--data-dir D] [--display-name N] [--owner-email E] [--timezone TZ] [--wordmark W] [--passphrase-file F]",
  options: {
    "data-dir": { type: "string", description: "Data directory (default ./kith-data, or KITH_DATA_DIR)", valueName: "dir" },
    "public-url": { type: "string", description: "Public base URL, e.g. https://kith.example.com (stored)", valueName: "url" },
    handle: { type: "string", description: "Handle: 1-32 lower-case letters, digits, inner hyphens", valueName: "handle" },
    "display-name": { type: "string", description: "Display name (default: the handle)", valueName: "name" },
    "owner-email": { type: "string", description: "The owner's email, for sign-in (stored)", valueName: "email" },
    timezone: { type: "string", description: "IANA time zone for the card (default: the system's)", valueName: "tz" },
    wordmark: { type: "string", description: "svc (default) or tulpa (stored)", valueName: "word" },
    "passphrase-file": { type: "string", description: "Encrypt the key file with the passphrase in this file", valueName: "file" },
    "log-level": { type: "string", description: "debug, info, warn, error, silent (default warn for init)", valueName: "level" },
  },
  async run(values, io) {
    if (typeof values.handle !== "string") throw new UsageError("--handle is required");
    if (typeof values["public-url"] !== "string") throw new UsageError("--public-url is required");
    const config = configFrom(values, io);
    const clock = systemClock;
    const log = createJsonLogger({ level: typeof values["log-level"] === "string" ? config.logLevel : "warn" });
    const identity = { handle: values.handle, displayName: values["display-name"] as string | undefined, timezone: (values.timezone as string | undefined) ?? systemTimeZone() };
    checkIdentityInput(identity); // before anything lands on disk: a refused init leaves no data directory behind
    const paths = dataPaths(config.dataDir);
    checkDataDir(paths.dir, "create");
    const state = nodeState(paths); // "incomplete": an interrupted creation, which createDataDir clears first
    if (state === "node" && existsSync(paths.keyFile)) throw new CliError(`${paths.keyFile} already exists; this data directory already has an agent identity`);
    const stored: Record<string, string> = { public_url: config.publicUrl, wordmark: config.wordmark };
    if (config.ownerEmail) stored.owner_email = config.ownerEmail;
    const make = (at: DataPaths) => {
      const db = openStorage(at, { clock, log });
      try {
        const agent = initializeIdentity(db, createKeyVault(at.keyFile, config.passphrase), { ...identity, stored }, { clock, ids: createUlidIds(clock), log });
        nodeSecret(at);
        return agent;
      } finally {
        closeDatabase(db);
      }
    };
    // A new node is made all or nothing (create-data-dir.ts); a database without an agent gets one in place.
    const agent = await guardStorage(paths, () => (state === "node" ? make(paths) : createDataDir(paths, make)));
    io.out(`agent id:  ${agentIdOf(agent, config.wordmark)}`);
    io.out(`card url:  ${cardUrlOf(config, agent.genesisKey)}`);
    io.out(`data dir:  ${paths.dir}`);
    io.out(`key file:  ${paths.keyFile}${config.passphrase ? " (encrypted)" : ""} — back it up: losing it loses this identity`);
    return 0;
  },
};

export function configFrom(values: Record<string, string | boolean | undefined>, io: { env: Record<string, string | undefined>; cwd: string }, stored?: Record<string, string>) {
  try {
    return resolveConfig({ flags: values, env: io.env, cwd: io.cwd, ...(stored ? { stored } : {}) });
  } catch (e) {
    if (e instanceof ConfigError) throw new UsageError(e.message);
    throw e;
  }
}
