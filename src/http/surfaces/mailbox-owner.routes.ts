import * as v from "valibot";
import { getMailboxUse } from "../../domain/mailbox/get-mailbox-use.ts";
import { grantMailbox, GrantMailboxInput } from "../../domain/mailbox/grant-mailbox.ts";
import { listMailboxes } from "../../domain/mailbox/list-mailboxes.ts";
import { revokeMailbox } from "../../domain/mailbox/revoke-mailbox.ts";
import type { OwnerTokens } from "../../security/owner-token.ts";
import type { SurfaceDeps } from "../deps.ts";
import { OWNER_SECURITY } from "../plugins/owner-auth.ts";
import { jsonBody } from "../schemas/body.ts";
import { errors } from "../schemas/common.ts";
import { ownerApi } from "./owner.routes.ts";

const MailboxDoc = v.object({
  id: v.string(),
  agentId: v.string(),
  status: v.picklist(["active", "revoked"]),
  maxMessages: v.number(),
  maxBytes: v.number(),
  retentionHours: v.number(),
  messages: v.pipe(v.number(), v.description("Messages waiting for the agent to collect them")),
  bytes: v.number(),
  cardPublishedAt: v.nullable(v.string()),
  lastDrainAt: v.nullable(v.string()),
  createdAt: v.string(),
  revokedAt: v.nullable(v.string()),
});

const MailboxUseDoc = v.object({
  url: v.pipe(v.nullable(v.string()), v.description("KITH_MAILBOX_URL; null when the node is reached at its own public URL")),
  endpoint: v.nullable(v.string()),
  cardUrl: v.nullable(v.string()),
  cardPublishedAt: v.nullable(v.string()),
  lastDrainAt: v.nullable(v.string()),
  lastError: v.nullable(v.string()),
  received: v.number(),
  refused: v.number(),
});

/** The owner's mailboxes (docs/decisions/mailbox.md): kept for other agents (grant, list, revoke), and the one this node uses. */
export function mailboxOwnerRoutes(deps: SurfaceDeps, o: { tokens: Pick<OwnerTokens, "verify"> }) {
  const doc = (summary: string, description: string) => ({ tags: ["Mailbox"], summary, description, security: OWNER_SECURITY });
  return ownerApi(o.tokens)
    .get("/mailbox", ({ actor }) => getMailboxUse(deps.ctx(actor)), {
      response: { 200: MailboxUseDoc, ...errors(401) },
      detail: doc("Mailbox used", "The mailbox this node is reached through (KITH_MAILBOX_URL): its endpoint and card URL, when the card was last published and the mailbox last collected, the last error, and how many requests were received and refused."),
    })
    .get("/mailboxes", ({ actor }) => listMailboxes(deps.ctx(actor)), {
      response: { 200: v.object({ items: v.array(MailboxDoc) }), ...errors(401) },
      detail: doc("Mailboxes granted", "Every mailbox this node keeps (or kept) for another agent: quotas, what waits in it, when its agent last collected and published its card."),
    })
    .post("/mailboxes", ({ actor, body, set }) => {
      set.status = 201;
      return grantMailbox(deps.ctx(actor), body);
    }, {
      body: jsonBody(GrantMailboxInput),
      response: { 201: MailboxDoc, ...errors(400, 401, 409) },
      detail: doc(
        "Grant a mailbox",
        "Keeps messages for a key-derived agent id that has no public address: its card (published by the agent, signed by it) is served at " +
          "`<this node>/mailbox/ink/v1/<agentId>/agent.json` and peers post to `…/intent`. Quotas: maxMessages (default 1000), maxBytes (default 16 MiB), " +
          "retentionHours (default 168, at most 720). 409 when the agent already has an open mailbox.",
      ),
    })
    .post("/mailboxes/:agentId/revoke", ({ actor, params }) => revokeMailbox(deps.ctx(actor), params.agentId), {
      params: v.object({ agentId: v.string() }),
      response: { 200: MailboxDoc, ...errors(401, 404) },
      detail: doc("Revoke a mailbox", "Stops intake, drains and the card at once and deletes the messages it held."),
    });
}
