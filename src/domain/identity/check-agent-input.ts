import * as v from "valibot";
import { invalidInput } from "../internal/errors.ts";
import { handleProblem } from "./internal/handles.ts";
import { normalizeHandle } from "../agent/normalize-handle.ts";

export const CreateAgentInput = v.strictObject({
  handle: v.string(),
  displayName: v.optional(v.string()),
  timezone: v.optional(v.string()),
});
export type CreateAgentInput = v.InferOutput<typeof CreateAgentInput>;

/**
 * The agent's handle, display name and time zone, normalized; throws invalid_input naming the
 * field. createAgent runs it first; `kith init` runs it before it creates anything on disk.
 */
export function checkAgentInput(input: CreateAgentInput): { handle: string; displayName: string; timezone: string } {
  const handle = normalizeHandle(input.handle);
  const problem = handleProblem(handle);
  if (problem) throw invalidInput(`handle: ${problem}`);
  const displayName = (input.displayName ?? handle).trim();
  if (displayName.length === 0 || displayName.length > 200) throw invalidInput("displayName: 1-200 characters");
  const timezone = input.timezone ?? "UTC";
  if (!isTimeZone(timezone)) throw invalidInput(`timezone: ${JSON.stringify(timezone)} is not an IANA time zone`);
  return { handle, displayName, timezone };
}

function isTimeZone(tz: string): boolean {
  if (tz === "UTC") return true; // no ICU start-up (~6 MB) for the zero-config default
  if (tz.length === 0 || tz.length > 64) return false;
  try {
    new Intl.DateTimeFormat("en", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}
