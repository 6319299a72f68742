import { isRegisteredIntent, validateIntentPayload } from "../../ink/index.ts";
import { invalidInput } from "../internal/errors.ts";

export function checkIntent(intent: string, payload: Record<string, unknown>): void {
  if (!isRegisteredIntent(intent)) throw invalidInput(`intent: ${JSON.stringify(intent)} is not one of the 15 INK intents`);
  const valid = validateIntentPayload(intent, payload);
  if (!valid.ok) throw invalidInput(`payload: ${valid.issue ?? "does not match the INK schema of " + intent}`);
}
