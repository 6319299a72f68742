import { integer, text } from "drizzle-orm/sqlite-core";

/**
 * The columns of a retried delivery, the same in every durable queue that sends to another node
 * (outbox, directory_pushes; domain/internal/retry.ts settles and shows them): attempts made, when
 * the next one is due, how the last one went, when it was delivered.
 */
export function retryColumns() {
  return {
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: integer("next_attempt_at").notNull(),
    lastAttemptAt: integer("last_attempt_at"),
    lastStatus: integer("last_status"),
    lastError: text("last_error"),
    deliveredAt: integer("delivered_at"),
  };
}
