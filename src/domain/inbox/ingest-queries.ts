import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { prepared } from "../../db/prepared.ts";
import { agents, connections, conversations, events, inboundNonces, messages, ownerPolicy, peerCards, pendingActions } from "../../db/schema/index.ts";

const p = sql.placeholder;

/**
 * The statements of the inbound hot path, prepared once per connection (building a drizzle query
 * costs ~20x running a prepared one). Every receive runs a dozen of these.
 */
export function ingestQueries(db: Db) {
  return prepared(db, "ingest", (d) => ({
    agent: d.select().from(agents).where(eq(agents.id, 1)).prepare(),
    policy: d.select().from(ownerPolicy).where(eq(ownerPolicy.id, 1)).prepare(),
    connectionByPrincipal: d.select().from(connections).where(eq(connections.principal, p("principal"))).prepare(),
    peerCard: d.select().from(peerCards).where(eq(peerCards.principal, p("principal"))).prepare(),
    insertNonce: d.insert(inboundNonces).values({ scope: p("scope"), nonce: p("nonce"), seenAt: p("at") }).onConflictDoNothing().returning({ nonce: inboundNonces.nonce }).prepare(),
    inboundById: d
      .select()
      .from(messages)
      .where(and(eq(messages.direction, "in"), eq(messages.peerPrincipal, p("principal")), eq(messages.envelopeId, p("envelopeId"))))
      .prepare(),
    conversation: d
      .select({ id: conversations.id })
      .from(conversations)
      .where(and(eq(conversations.peerPrincipal, p("principal")), eq(conversations.correlationId, p("correlationId"))))
      .prepare(),
    touchConversation: d
      .update(conversations)
      .set({ messageCount: sql`${conversations.messageCount} + 1`, lastMessageAt: sql`max(${conversations.lastMessageAt}, ${p("at")})` })
      .where(eq(conversations.id, p("id")))
      .prepare(),
    insertConversation: d
      .insert(conversations)
      .values({ id: p("id"), peerPrincipal: p("principal"), correlationId: p("correlationId"), subject: p("subject"), messageCount: 1, lastMessageAt: p("at"), createdAt: p("at") })
      .prepare(),
    insertMessage: d
      .insert(messages)
      .values({
        id: p("id"),
        envelopeId: p("envelopeId"),
        direction: "in",
        peerPrincipal: p("principal"),
        peerAgentId: p("from"),
        conversationId: p("conversationId"),
        correlationId: p("correlationId"),
        intent: p("intent"),
        protocol: p("protocol"),
        payloadJson: p("payloadJson"),
        envelopeJson: p("envelopeJson"),
        sealed: p("sealed"),
        status: p("status"),
        createdAt: p("createdAt"),
        receivedAt: p("at"),
        expiresAt: p("expiresAt"),
        keyId: p("keyId"),
        pendingActionId: p("pendingActionId"),
        searchText: p("searchText"),
      })
      .prepare(),
    insertEvent: d.insert(events).values({ type: p("type"), subjectId: p("subjectId"), peerPrincipal: p("principal"), dataJson: p("data"), createdAt: p("at") }).prepare(),
    insertPending: d
      .insert(pendingActions)
      .values({ id: p("id"), kind: p("kind"), status: "pending", messageId: p("messageId"), connectionId: p("connectionId"), reason: p("reason"), createdAt: p("at") })
      .prepare(),
    touchConnection: d.update(connections).set({ lastMessageAt: sql`${p("at")}` }).where(eq(connections.principal, p("principal"))).prepare(),
  }));
}
