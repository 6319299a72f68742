import type { Db } from "../db/client.ts";
import type { Clock, Ids, Logger } from "../domain/context.ts";
import type { NodeIdentity } from "../domain/context.ts";
import { findAgentRow } from "../domain/agent/find-agent-row.ts";
import { agentIdOf } from "../domain/agent/agent-id-of.ts";
import { checkAgentInput, type CreateAgentInput } from "../domain/identity/check-agent-input.ts";
import { createAgent } from "../domain/identity/create-agent.ts";
import { DomainError } from "../domain/errors.ts";
import { storeSettings } from "../domain/node/store-settings.ts";
import type { KeyVault } from "../adapters/key-vault.ts";
import { CliError } from "./command.ts";
import { inboundBaseOf } from "../domain/agent/inbound-base-of.ts";

export interface InitInput {
  handle: string;
  displayName?: string | undefined;
  timezone?: string | undefined;
  /** Settings to store for later starts (public_url, owner_email, wordmark). */
  stored: Record<string, string>;
}

/** Creates the agent and stores init's settings; maps domain refusals to CLI errors. */
export function initializeIdentity(db: Db, vault: KeyVault, input: InitInput, deps: { clock: Clock; ids: Ids; log: Logger }) {
  const ctx = { actor: { kind: "system", job: "init" } as const, db, ...deps, vault };
  if (findAgentRow(db) || vault.exists()) {
    throw new CliError(`this data directory already has an agent identity (${vault.path}); refusing to overwrite it`);
  }
  try {
    const agent = createAgent(ctx, { handle: input.handle, displayName: input.displayName, timezone: input.timezone });
    if (Object.keys(input.stored).length > 0) storeSettings(db, input.stored, deps.clock.now());
    return agent;
  } catch (e) {
    if (e instanceof DomainError) throw new CliError(e.message, e.code === "invalid_input" ? 2 : 1);
    throw e;
  }
}

/** Checks handle, display name and time zone as createAgent will, before anything is written (exit 2 when refused). */
export function checkIdentityInput(input: CreateAgentInput): void {
  try {
    checkAgentInput(input);
  } catch (e) {
    if (e instanceof DomainError) throw new CliError(e.message, e.code === "invalid_input" ? 2 : 1);
    throw e;
  }
}

export function cardUrlOf(node: NodeIdentity, genesisKey: string): string {
  return `${inboundBaseOf(node)}/ink/v1/${encodeURIComponent(agentIdOf({ genesisKey }, node.wordmark))}/agent.json`;
}

export function systemTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}
