/** Request intents and the `_response` intent that answers each (INK §3.3). */
export const RESPONSE_OF: Readonly<Record<string, string>> = {
  schedule_meeting: "schedule_meeting_response",
  intro_request: "intro_response",
  ask: "ask_response",
  opportunity: "opportunity_response",
  connection_request: "connection_response",
};

export function isResponseIntent(intent: string): boolean {
  return intent.endsWith("_response");
}

/** The request intent a response answers (`ask_response` → `ask`). */
export function requestOf(responseIntent: string): string | null {
  return Object.entries(RESPONSE_OF).find(([, r]) => r === responseIntent)?.[0] ?? null;
}
