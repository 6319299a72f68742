-- No query reads audit_events by created_at: every read goes by chain through the primary key
-- (chain_id, sequence). The index cost every accepted intent (and every extension call) one more
-- B-tree page in its COMMIT (docs/decisions/inbound-performance.md "WAL frames per intent").
DROP INDEX `audit_events_created_idx`;
