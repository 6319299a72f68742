import type { Statement } from "bun:sqlite";
import type { Db } from "./client.ts";
import { prepared } from "./prepared.ts";

/**
 * The statements of the inbound hot path as raw prepared SQLite statements (notes/STACK.md B.6:
 * query building costs ~20x a prepared statement, and drizzle's row mapping ~2x a raw one). Every
 * accepted intent runs about ten of these inside one group commit, so they are kept to the
 * columns the path needs. Column names follow src/db/schema; the schema tests cover them.
 */
export interface ConnectionLite {
  id: string;
  status: string;
  initiatedBy: "us" | "them";
  connectedAt: number | null;
  requestMessageId: string | null;
}

export interface PolicyRowRaw {
  id: number;
  maxAutonomyLevel: "none" | "draft_only" | "auto_respond" | "full";
  trustedDidsJson: string;
  maxInboundRate: number;
  /** 0/1 as stored. */
  acceptForeignAgents: number;
  allowedMethodsJson: string;
  allowedHostsJson: string;
  allowedDidsJson: string;
  blockedDidsJson: string;
  updatedAt: number;
}

export interface PeerCardRaw {
  principal: string;
  agentId: string;
  cardUrl: string | null;
  cardJson: string | null;
  fetchedAt: number | null;
  expiresAt: number | null;
  /** 0/1 as stored. */
  signingSetObserved: number;
  lastRefreshAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface InboundRowLite {
  id: string;
  intent: string;
  correlationId: string;
  payloadJson: string;
  status: string;
  pendingActionId: string | null;
}

export function ingestStatements(db: Db) {
  return prepared(db, "ingest-raw", (d) => {
    const s = <R = unknown>(sql: string) => d.$client.prepare(sql) as unknown as Statement<R>;
    return {
      policy: s<PolicyRowRaw>(
        `SELECT id, max_autonomy_level AS maxAutonomyLevel, trusted_dids_json AS trustedDidsJson, max_inbound_rate AS maxInboundRate,
                accept_foreign_agents AS acceptForeignAgents, allowed_methods_json AS allowedMethodsJson, allowed_hosts_json AS allowedHostsJson,
                allowed_dids_json AS allowedDidsJson, blocked_dids_json AS blockedDidsJson, updated_at AS updatedAt
           FROM owner_policy WHERE id = 1`,
      ),
      connectionByPrincipal: s<ConnectionLite>(
        `SELECT id, status, initiated_by AS initiatedBy, connected_at AS connectedAt, request_message_id AS requestMessageId FROM connections WHERE principal = ?`,
      ),
      connectionCardUrl: s<{ cardUrl: string | null }>(`SELECT card_url AS cardUrl FROM connections WHERE principal = ?`),
      peerCard: s<PeerCardRaw>(
        `SELECT principal, agent_id AS agentId, card_url AS cardUrl, card_json AS cardJson, fetched_at AS fetchedAt, expires_at AS expiresAt,
                signing_set_observed AS signingSetObserved, last_refresh_at AS lastRefreshAt, created_at AS createdAt, updated_at AS updatedAt
           FROM peer_cards WHERE principal = ?`,
      ),
      inboundById: s<InboundRowLite>(
        `SELECT id, intent, correlation_id AS correlationId, payload_json AS payloadJson, status, pending_action_id AS pendingActionId
           FROM messages WHERE direction = 'in' AND peer_principal = ? AND envelope_id = ?`,
      ),
      conversation: s<{ id: string }>(`SELECT id FROM conversations WHERE peer_principal = ? AND correlation_id = ?`),
      touchConversation: s(`UPDATE conversations SET message_count = message_count + 1, last_message_at = max(last_message_at, ?) WHERE id = ?`),
      insertConversation: s(
        `INSERT INTO conversations (id, peer_principal, correlation_id, subject, message_count, last_message_at, created_at) VALUES (?, ?, ?, ?, 1, ?, ?)`,
      ),
      insertMessage: s(
        `INSERT INTO messages (id, envelope_id, direction, peer_principal, peer_agent_id, conversation_id, correlation_id, intent, protocol,
                               payload_json, envelope_json, sealed, status, created_at, received_at, expires_at, key_id, pending_action_id, search_text)
         VALUES (?, ?, 'in', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      insertEvent: s(`INSERT INTO events (type, subject_id, peer_principal, data_json, created_at) VALUES (?, ?, ?, ?, ?)`),
      insertPending: s(
        `INSERT INTO pending_actions (id, kind, status, message_id, connection_id, reason, created_at) VALUES (?, ?, 'pending', ?, ?, ?, ?)`,
      ),
      setting: s<{ value: string }>(`SELECT value FROM settings WHERE key = ?`),
      sentTo: s<{ n: number }>(`SELECT 1 AS n FROM messages WHERE peer_principal = ? AND direction = 'out' LIMIT 1`),
      touchConnection: s(`UPDATE connections SET last_message_at = ? WHERE principal = ?`),
      // The agent's active signing key: every accepted intent signs its audit event (AUDIT §2).
      activeSigningKey: s<{ keyId: string; createdAt: number }>(
        `SELECT key_id AS keyId, created_at AS createdAt FROM agent_keys WHERE role = 'signing' AND status = 'active' ORDER BY created_at DESC LIMIT 1`,
      ),
    };
  });
}
