// The extension's manifest (docs/extensions.md §1). It asks for more than it strictly needs
// (the `social` tier, three layers) so that an owner can grant less — the run copes with either.
export function manifest(publicKeyMultibase: string, version = "1.0.0"): Record<string, unknown> {
  return {
    manifestVersion: 1,
    id: "com.example.keepintouch",
    version,
    name: "Keep in touch",
    summary: "Nudges the people in your closest circles you are drifting away from.",
    publisher: { name: "Example", domain: "example.com", url: "https://example.com" },
    categories: ["relationships"],
    links: { privacyPolicy: "https://example.com/privacy" },
    keys: [{ keyId: "kit-1", algorithm: "Ed25519", publicKeyMultibase, status: "active" }],
    permissions: [
      { name: "connections:list", required: true, reason: "To greet the people it nudges by name." },
      { name: "layers:read", required: true, reason: "To see who in your close circles is cooling off." },
      { name: "events:subscribe", required: true, reason: "To follow what happens to the nudges it sends." },
      { name: "intents:send", required: false, reason: "To send a short ping, or a question you approve first." },
    ],
    layers: { requested: ["inner", "active", "sympathy"], reason: "Only your closer circles are worth a nudge." },
    maxAutonomyTier: "social",
    intents: ["ping", "ask"],
    events: ["relationship.*", "intent.*", "approval.*", "installation.*"],
  };
}
