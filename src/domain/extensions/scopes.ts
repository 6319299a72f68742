/**
 * Extension scopes (SPEC "Extension concepts"), published under `x-svc.extensionScopes` in the
 * OpenAPI document, each with the permissions it stands for (EXTENSIONS §1.7: one permission maps
 * to exactly one scope). Each /ext/v1 operation names its scope and permission under `x-svc`.
 */
export const EXTENSION_SCOPES: Record<string, { description: string; permissions: string[] }> = {
  "identity.read": { description: "The delegated agent identity and the installation's own audit chain (implicit in every install); the owner's public profile with profile:read", permissions: ["profile:read"] },
  "connections.read": {
    description: "Contacts, layers and graph summaries in the granted layers",
    permissions: ["connections:list", "layers:read", "graph:read:clusters:summary", "graph:read:clusters:members", "graph:read:bridges"],
  },
  "connections.write": { description: "Send intents to contacts in granted layers, within the autonomy tier", permissions: ["intents:send"] },
  "agent.chat": { description: "Talk to the owner's agent", permissions: ["agent.chat"] },
  "briefing.read": { description: "Reserved: grants nothing yet", permissions: [] },
  "events.read": { description: "Read the event feed since a sequence number", permissions: ["events:subscribe"] },
  "events.write": { description: "Reserved: grants nothing yet", permissions: [] },
};
