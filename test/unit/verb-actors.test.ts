import { afterAll, describe, expect, test } from "bun:test";
import { answerDiscoveryQuery } from "../../src/domain/discovery/answer-discovery-query.ts";
import { getPublication } from "../../src/domain/discovery/get-publication.ts";
import { listDirectoryListings } from "../../src/domain/discovery/list-directory-listings.ts";
import { publishAgent } from "../../src/domain/discovery/publish-agent.ts";
import { receiveListing } from "../../src/domain/discovery/receive-listing.ts";
import { unpublishAgent } from "../../src/domain/discovery/unpublish-agent.ts";
import { decidePending } from "../../src/domain/approvals/decide-pending.ts";
import { listPending } from "../../src/domain/approvals/list-pending.ts";
import { getPendingAction } from "../../src/domain/approvals/get-pending-action.ts";
import { draftResponse } from "../../src/domain/assistant/draft-response.ts";
import { summarizeConversation } from "../../src/domain/assistant/summarize-conversation.ts";
import { transcribeAudio } from "../../src/domain/assistant/transcribe-audio.ts";
import { addConnection } from "../../src/domain/connections/add-connection.ts";
import { listConnections } from "../../src/domain/connections/list-connections.ts";
import { getConnection } from "../../src/domain/connections/get-connection.ts";
import { updateConnection } from "../../src/domain/connections/update-connection.ts";
import { importLinkedIn } from "../../src/domain/contacts/import-linkedin.ts";
import type { Actor } from "../../src/domain/context.ts";
import { listConversations } from "../../src/domain/conversations/list-conversations.ts";
import { getConversation } from "../../src/domain/conversations/get-conversation.ts";
import { DomainError } from "../../src/domain/errors.ts";
import { createAgent } from "../../src/domain/identity/create-agent.ts";
import { createAgentForOwner } from "../../src/domain/identity/create-agent-for-owner.ts";
import { getIdentity } from "../../src/domain/identity/get-identity.ts";
import { listAgentKeys } from "../../src/domain/identity/list-agent-keys.ts";
import { queryAgentCard } from "../../src/domain/agent-card/query-agent-card.ts";
import { revokeKey } from "../../src/domain/identity/revoke-key.ts";
import { rotateSigningKey } from "../../src/domain/identity/rotate-signing-key.ts";
import { setCardVisibility } from "../../src/domain/agent-card/set-card-visibility.ts";
import { getInboxMessage } from "../../src/domain/inbox/get-inbox-message.ts";
import { listInbox } from "../../src/domain/inbox/list-inbox.ts";
import { receiveIntent } from "../../src/domain/inbox/receive-intent.ts";
import { respondToMessage } from "../../src/domain/inbox/respond-to-message.ts";
import { getOutboxStatus } from "../../src/domain/outbox/get-outbox-status.ts";
import { getSentMessage } from "../../src/domain/outbox/get-sent-message.ts";
import { sendIntent } from "../../src/domain/outbox/send-intent.ts";
import { getOwnerPolicy } from "../../src/domain/policy/get-owner-policy.ts";
import { updatePolicy } from "../../src/domain/policy/update-policy.ts";
import { deleteProfileSnapshot } from "../../src/domain/profile/delete-profile-snapshot.ts";
import { listProfileSnapshots } from "../../src/domain/profile/list-profile-snapshots.ts";
import { putProfileSnapshot } from "../../src/domain/profile/put-profile-snapshot.ts";
import { addNote } from "../../src/domain/relationships/add-note.ts";
import { listNotes } from "../../src/domain/relationships/list-notes.ts";
import { createRule } from "../../src/domain/rules/create-rule.ts";
import { deleteRule } from "../../src/domain/rules/delete-rule.ts";
import { listRuleRuns } from "../../src/domain/rules/list-rule-runs.ts";
import { listRules } from "../../src/domain/rules/list-rules.ts";
import { getRule } from "../../src/domain/rules/get-rule.ts";
import { updateRule } from "../../src/domain/rules/update-rule.ts";
import { acceptExtensionUpdate } from "../../src/domain/extensions/accept-extension-update.ts";
import { getExtConnection } from "../../src/domain/extensions/get-ext-connection.ts";
import { getExtIdentity } from "../../src/domain/extensions/get-ext-identity.ts";
import { getExtLayer } from "../../src/domain/extensions/get-ext-layer.ts";
import { getExtProfile } from "../../src/domain/extensions/get-ext-profile.ts";
import { getInstallation } from "../../src/domain/extensions/get-installation.ts";
import { installExtension } from "../../src/domain/extensions/install-extension.ts";
import { listExtAudit } from "../../src/domain/extensions/list-ext-audit.ts";
import { listExtConnections } from "../../src/domain/extensions/list-ext-connections.ts";
import { listExtEvents } from "../../src/domain/extensions/list-ext-events.ts";
import { listExtLayers } from "../../src/domain/extensions/list-ext-layers.ts";
import { listInstallations } from "../../src/domain/extensions/list-installations.ts";
import { sendExtIntent } from "../../src/domain/extensions/send-ext-intent.ts";
import { uninstallExtension } from "../../src/domain/extensions/uninstall-extension.ts";
import { updateExtensionManifest } from "../../src/domain/extensions/update-extension-manifest.ts";
import { updateInstallationPermissions } from "../../src/domain/extensions/update-installation-permissions.ts";
import { bootTestApp } from "../helpers/boot.ts";

// Each verb checks its caller on its first line (STYLE: "a verb checks the variant on its first
// line"), whatever route or job calls it: an owner verb refuses anyone but the owner (or the node
// itself, in-process), a verb answering a signed INK request anyone but a verified agent. The
// arguments after ctx are never looked at: the refusal comes first.

const node = bootTestApp();
afterAll(() => node.close());

const agent: Actor = { kind: "agent", principal: "key:z6MkExample", agentId: "svc:z6MkExample", ip: null, card: null, keys: { kind: "none" }, nonce: "n".repeat(16) };
const strangers: Array<[string, Actor]> = [
  ["public", { kind: "public", ip: "192.0.2.1" }],
  ["agent", agent],
  ["extension", { kind: "extension", installationId: "ext_1", extensionId: "com.acme.keepintouch", permissions: ["connections:list"], layers: ["inner"], maxAutonomyTier: "transactional", publicKeyMultibase: "z6Mk" }],
];

type Call = (ctx: ReturnType<typeof node.ctx>) => unknown;
const any = undefined as never;
const OWNER_VERBS: Record<string, Call> = {
  listInbox: (c) => listInbox(c, {}),
  getInboxMessage: (c) => getInboxMessage(c, "x"),
  respondToMessage: (c) => respondToMessage(c, "x", any),
  listConnections: (c) => listConnections(c, {}),
  getConnection: (c) => getConnection(c, "x"),
  addConnection: (c) => addConnection(c, any),
  updateConnection: (c) => updateConnection(c, "x", any),
  listConversations: (c) => listConversations(c, {}),
  getConversation: (c) => getConversation(c, "x"),
  sendIntent: (c) => sendIntent(c, any),
  getSentMessage: (c) => getSentMessage(c, "x"),
  getOutboxStatus: (c) => getOutboxStatus(c),
  listPending: (c) => listPending(c, {}),
  getPendingAction: (c) => getPendingAction(c, "x"),
  decidePending: (c) => decidePending(c, "x", any),
  getIdentity: (c) => getIdentity(c),
  createAgent: (c) => createAgent(c, any),
  createAgentForOwner: (c) => createAgentForOwner(c, any),
  setCardVisibility: (c) => setCardVisibility(c, any),
  listAgentKeys: (c) => listAgentKeys(c),
  rotateSigningKey: (c) => rotateSigningKey(c),
  revokeKey: (c) => revokeKey(c, any),
  getPublication: (c) => getPublication(c),
  publishAgent: (c) => publishAgent(c, any),
  unpublishAgent: (c) => unpublishAgent(c),
  listDirectoryListings: (c) => listDirectoryListings(c, {}),
  addNote: (c) => addNote(c, "x", any),
  listNotes: (c) => listNotes(c, "x", {}),
  createRule: (c) => createRule(c, any),
  listRules: (c) => listRules(c, {}),
  getRule: (c) => getRule(c, "x"),
  updateRule: (c) => updateRule(c, "x", any),
  deleteRule: (c) => deleteRule(c, "x"),
  listRuleRuns: (c) => listRuleRuns(c, "x", {}),
  getOwnerPolicy: (c) => getOwnerPolicy(c),
  updatePolicy: (c) => updatePolicy(c, any),
  listProfileSnapshots: (c) => listProfileSnapshots(c, {}),
  putProfileSnapshot: (c) => putProfileSnapshot(c, "x", any),
  deleteProfileSnapshot: (c) => deleteProfileSnapshot(c, "x"),
  draftResponse: (c) => draftResponse(c, "x"),
  summarizeConversation: (c) => summarizeConversation(c, "x"),
  transcribeAudio: (c) => transcribeAudio(c, null),
  importLinkedIn: (c) => importLinkedIn(c, any),
  listInstallations: (c) => listInstallations(c),
  installExtension: (c) => installExtension(c, any),
  getInstallation: (c) => getInstallation(c, "x"),
  updateInstallationPermissions: (c) => updateInstallationPermissions(c, "x", any),
  updateExtensionManifest: (c) => updateExtensionManifest(c, "x", any),
  acceptExtensionUpdate: (c) => acceptExtensionUpdate(c, "x"),
  uninstallExtension: (c) => uninstallExtension(c, "x"),
};

/** The extension API's verbs: an installed extension only (the owner has the owner API). */
const EXTENSION_VERBS: Record<string, Call> = {
  getExtIdentity: (c) => getExtIdentity(c),
  listExtConnections: (c) => listExtConnections(c, {}),
  getExtConnection: (c) => getExtConnection(c, "x"),
  listExtLayers: (c) => listExtLayers(c, {}),
  getExtLayer: (c) => getExtLayer(c, "x"),
  getExtProfile: (c) => getExtProfile(c),
  listExtEvents: (c) => listExtEvents(c, {}),
  listExtAudit: (c) => listExtAudit(c, {}),
  sendExtIntent: (c) => sendExtIntent(c, any, null),
};

const AGENT_VERBS: Record<string, Call> = {
  receiveIntent: (c) => receiveIntent(c, any),
  queryAgentCard: (c) => queryAgentCard(c, any),
  receiveListing: (c) => receiveListing(c, any),
  answerDiscoveryQuery: (c) => answerDiscoveryQuery(c, any),
};

async function refusal(call: Call, actor: Actor): Promise<string> {
  try {
    await call(node.ctx(actor));
    return "allowed";
  } catch (e) {
    return e instanceof DomainError ? e.code : `threw ${String(e)}`;
  }
}

describe("every owner verb refuses anyone but the owner, on its first line", () => {
  for (const [name, call] of Object.entries(OWNER_VERBS)) {
    test(name, async () => {
      for (const [who, actor] of strangers) expect({ who, answer: await refusal(call, actor) }).toEqual({ who, answer: "forbidden" });
    });
  }
});

describe("every verb answering a signed INK request refuses anyone but a verified agent, on its first line", () => {
  for (const [name, call] of Object.entries(AGENT_VERBS)) {
    test(name, async () => {
      for (const [who, actor] of [...strangers.filter(([w]) => w !== "agent"), ["owner", { kind: "owner", subject: "owner" }] as [string, Actor]]) {
        expect({ who, answer: await refusal(call, actor) }).toEqual({ who, answer: "forbidden" });
      }
    });
  }
});

describe("every extension-API verb refuses anyone but an installed extension, on its first line", () => {
  const others: Array<[string, Actor]> = [["owner", { kind: "owner", subject: "owner" }], ["public", { kind: "public", ip: "192.0.2.1" }], ["agent", agent]];
  for (const [name, call] of Object.entries(EXTENSION_VERBS)) {
    test(name, async () => {
      for (const [who, actor] of others) expect({ who, answer: await refusal(call, actor) }).toEqual({ who, answer: "forbidden" });
    });
  }
});
