import { getMailboxUse } from "../domain/mailbox/get-mailbox-use.ts";
import { grantMailbox, GrantMailboxInput } from "../domain/mailbox/grant-mailbox.ts";
import { listMailboxes } from "../domain/mailbox/list-mailboxes.ts";
import { revokeMailbox } from "../domain/mailbox/revoke-mailbox.ts";
import type { MailboxView } from "../domain/mailbox/internal/mailbox-view.ts";
import * as v from "valibot";
import { CliError, cliName, UsageError, type Command, type Io } from "./command.ts";
import { withNode } from "./keys.ts";

export const mailboxCommand: Command = {
  name: "mailbox",
  brief: "Keep mailboxes for agents with no public address, or see the one this node uses (mailbox grant | list | revoke | status).",
  summary:
    "mailbox grant <agentId>: keep a mailbox for an agent with no public address (its card and endpoint then live at " +
    "<public url>/mailbox/ink/v1/<agentId>/…; it sets KITH_MAILBOX_URL=<public url>/mailbox).\n" +
    "mailbox list: the mailboxes kept here, with quotas, what waits in them and when their agent last collected.\n" +
    "mailbox revoke <agentId>: close one; what it held is deleted.\n" +
    "mailbox status: on a home node, the mailbox it is reached through and how collecting went. The mailbox is the " +
    "KITH_MAILBOX_URL of this command's environment: run it with the node's (or ask the running node: GET /api/svc/mailbox).",
  usage: "kith mailbox grant <agentId> [--max-messages N] [--max-bytes N] [--retention-hours N] | kith mailbox list [--json] | kith mailbox revoke <agentId> | kith mailbox status [--json]   (all: [--data-dir D])",
  positionals: true,
  options: {
    "data-dir": { type: "string", description: "Data directory (default ./kith-data, or KITH_DATA_DIR)", valueName: "dir" },
    "max-messages": { type: "string", description: "grant: messages held at most (default 1000)", valueName: "n" },
    "max-bytes": { type: "string", description: "grant: bytes held at most (default 16777216)", valueName: "n" },
    "retention-hours": { type: "string", description: "grant: hours a message is kept (default 168, at most 720)", valueName: "n" },
    json: { type: "boolean", description: "list, status: print JSON" },
  },
  run(values, io, positionals) {
    const [sub, ...rest] = positionals;
    const one = (what: string): string => {
      if (rest.length !== 1 || rest[0] === "") throw new UsageError(rest.length === 0 ? `mailbox ${what} needs the agent id` : `unexpected argument ${JSON.stringify(rest[1])}`);
      return rest[0]!;
    };
    if (sub === "grant") {
      const agentId = one("grant");
      const input = v.safeParse(GrantMailboxInput, { agentId, maxMessages: num(values["max-messages"]), maxBytes: num(values["max-bytes"]), retentionHours: num(values["retention-hours"]) });
      if (!input.success) throw new UsageError(input.issues[0].message);
      return withNode(values, io, { job: "mailbox-grant", write: true }, (ctx, config) => {
        const granted = grantMailbox(ctx, input.output);
        print(io, granted);
        io.out(`the agent sets KITH_MAILBOX_URL=${config.publicUrl}/mailbox`);
        return 0;
      });
    }
    if (sub === "revoke") {
      const agentId = one("revoke");
      return withNode(values, io, { job: "mailbox-revoke", write: true }, (ctx) => (print(io, revokeMailbox(ctx, agentId)), 0));
    }
    if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);
    if (sub === "list") {
      return withNode(values, io, { job: "mailbox-list", write: false }, (ctx) => {
        const { items } = listMailboxes(ctx);
        if (values.json) io.out(JSON.stringify(items, null, 2));
        else if (items.length === 0) io.out(`no mailboxes kept here (${cliName()} mailbox grant <agentId>)`);
        else for (const m of items) print(io, m);
        return 0;
      });
    }
    if (sub === "status") {
      return withNode(values, io, { job: "mailbox-status", write: false }, (ctx, config) => {
        const use = getMailboxUse({ ...ctx, node: { publicUrl: config.publicUrl, wordmark: config.wordmark, mailboxUrl: config.mailboxUrl } });
        if (values.json) io.out(JSON.stringify(use, null, 2));
        else if (!use.url) io.out("no KITH_MAILBOX_URL here: the node is reached at its public URL, unless it runs with one (give this command the node's KITH_MAILBOX_URL, or GET /api/svc/mailbox)");
        else io.out(`mailbox ${use.url}\n  card:      ${use.cardUrl} (published ${use.cardPublishedAt ?? "never"})\n  collected: ${use.lastDrainAt ?? "never"}; ${use.received} received, ${use.refused} refused${use.lastError ? `\n  last error: ${use.lastError}` : ""}`);
        return 0;
      });
    }
    throw new UsageError(sub ? `unknown mailbox command ${JSON.stringify(sub)} (grant, list, revoke, status)` : "mailbox needs a command: grant, list, revoke or status");
  },
};

function num(value: string | boolean | undefined): number | undefined {
  if (typeof value !== "string") return undefined;
  if (!/^\d{1,12}$/.test(value)) throw new CliError(`expected a whole number, got ${JSON.stringify(value)}`, 2);
  return Number(value);
}

function print(io: Io, m: MailboxView): void {
  io.out(`${m.status.padEnd(8)} ${m.agentId}  ${m.messages}/${m.maxMessages} messages, ${m.bytes}/${m.maxBytes} bytes, kept ${m.retentionHours} h; last collected ${m.lastDrainAt ?? "never"}`);
}
