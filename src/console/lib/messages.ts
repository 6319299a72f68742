import { shortId } from "./format.ts";

/** The owner API's message and pending-action records (see /.well-known/openapi.json). */
export interface Delivery {
  state: "queued" | "delivered" | "failed" | "held" | "cancelled";
  attempts: number;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: string | null;
}

export interface Message {
  id: string;
  messageId: string;
  direction: "inbound" | "outbound";
  from: string | null;
  to: string | null;
  intent: string;
  payload: Record<string, unknown>;
  correlationId: string;
  conversationId: string;
  sealed: boolean;
  status: string;
  createdAt: string;
  receivedAt: string;
  inReplyTo: string | null;
  respondedAt: string | null;
  pendingActionId: string | null;
  delivery?: Delivery;
  labels?: string[];
}

export interface PendingAction {
  id: string;
  kind: "inbound_intent" | "connection_request" | "outbound_intent";
  status: "pending" | "approved" | "rejected";
  reason: string;
  message: Message | null;
  connectionId: string | null;
  action: unknown;
  result: unknown;
  createdAt: string;
  decidedAt: string | null;
}

export interface Conversation {
  id: string;
  correlationId: string;
  subject: string | null;
  peer: { agentId: string | null; handle: string | null; displayName: string | null; connectionId: string | null; principal: string };
  messageCount: number;
  lastMessageAt: string;
}

export const STATUS_TEXT: Record<string, string> = {
  unread: "New",
  read: "Read",
  pending: "Waiting for you",
  responded: "Answered",
  rejected: "Declined",
  expired: "Expired",
  queued: "Sending",
  delivered: "Delivered",
  failed: "Not delivered",
  held: "Held for approval",
  cancelled: "Cancelled",
  retracted: "Retracted",
};

export const STATUS_TONE: Record<string, "neutral" | "accent" | "good" | "warn" | "bad"> = {
  unread: "accent",
  pending: "warn",
  responded: "good",
  delivered: "good",
  queued: "neutral",
  failed: "bad",
  held: "warn",
  rejected: "neutral",
};

/** The drafted reply a rule left in a pending action, if any. */
export function draftedReply(action: unknown): { intent: string; payload: Record<string, unknown> } | null {
  const reply = (action as { reply?: { intent?: unknown; payload?: unknown } } | null)?.reply;
  return reply && typeof reply.intent === "string" && reply.payload && typeof reply.payload === "object" ? { intent: reply.intent, payload: reply.payload as Record<string, unknown> } : null;
}

/** Who a conversation is with, in words. */
export const peerName = (c: Conversation) => c.peer.displayName || (c.peer.handle ? `@${c.peer.handle}` : shortId(c.peer.agentId ?? c.peer.principal));
