/**
 * Extension scopes (SPEC "Extension concepts"), published under `x-svc.extensionScopes` in the
 * OpenAPI document, each with the extension-API permissions it stands for.
 */
export const EXTENSION_SCOPES: Record<string, { description: string; permissions: string[] }> = {
  "identity.read": { description: "Read the delegated agent identity", permissions: [] },
  "connections.read": { description: "List connections and their layers in granted layers", permissions: ["connections:list", "layers:read"] },
  "connections.write": { description: "Send intents to contacts in granted layers, within the autonomy tier", permissions: ["intents:send"] },
  "agent.chat": { description: "Talk to the owner's agent", permissions: [] },
  "briefing.read": { description: "Read the owner's public profile snapshot and network summaries", permissions: ["profile:read", "graph:read:clusters:summary"] },
  "events.read": { description: "Read the event feed since a sequence number", permissions: ["events:subscribe"] },
  "events.write": { description: "Append events to the owner's feed", permissions: [] },
};
