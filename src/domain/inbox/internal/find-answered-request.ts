import { and, eq } from "drizzle-orm";
import type { Db, Tx } from "../../../db/client.ts";
import { messages } from "../../../db/schema/index.ts";
import { requestOf } from "../../internal/response-intents.ts";

/**
 * Which of our requests a response answers: the message we sent this peer in the same thread with
 * the request intent the response is for (INK §3.3: `ask_response` answers `ask`), or null.
 */
export function findAnsweredRequest(db: Db | Tx, m: { principal: string; correlationId: string; intent: string }): { id: string } | null {
  const request = requestOf(m.intent);
  if (!request) return null;
  return (
    db
      .select({ id: messages.id })
      .from(messages)
      .where(and(eq(messages.direction, "out"), eq(messages.peerPrincipal, m.principal), eq(messages.correlationId, m.correlationId), eq(messages.intent, request)))
      .get() ?? null
  );
}
