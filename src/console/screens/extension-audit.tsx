/** @jsxImportSource preact */
import { useState } from "preact/hooks";
import { api, qs } from "../lib/api.ts";
import { intentLabel, shortId } from "../lib/format.ts";
import { useLoad } from "../lib/live.ts";
import { Badge, Button, Loaded, Section, Table, When } from "../ui/kit.tsx";

/** One INK audit record (AUDIT.md §2) as GET /api/svc/extensions/{id}/audit serves it. */
interface AuditEvent {
  id: string;
  sequence: number;
  eventType: string;
  timestamp: string;
  counterpartyId?: string;
  data?: Record<string, unknown>;
}
interface Trail {
  events: AuditEvent[];
  total: number;
  chain: { verified: boolean; reason?: string; index?: number };
}

const PAGE = 20;
/** What each extension API path does, in words (docs/extensions.md). */
const READS: Array<[string, string]> = [
  ["/ext/v1/identity", "Read your identity"],
  ["/ext/v1/connections", "Read your connections"],
  ["/ext/v1/layers", "Read your circles"],
  ["/ext/v1/events", "Read the event feed"],
  ["/ext/v1/profile", "Read your profile"],
  ["/ext/v1/intents", "Sent a request"],
  ["/ext/v1/audit", "Read its audit trail"],
  ["/ext/v1/token", "Renewed its token"],
];

/** The operation and its outcome, in words. */
function describe(e: AuditEvent): [string, string, "good" | "warn" | "neutral" | "bad"] {
  const d = e.data ?? {};
  const str = (k: string) => (typeof d[k] === "string" ? (d[k] as string) : "");
  switch (e.eventType) {
    case "delegation.granted":
      return str("by") === "renewal" ? ["Renewed its access token", "Allowed", "good"] : [str("version") ? `Access granted (version ${str("version")})` : "Access granted by you", "Granted", "good"];
    case "delegation.revoked":
      return ["Access removed by you", "Revoked", "neutral"];
    case "delegation.used": {
      const path = str("path").split("?")[0]!;
      const what = READS.find(([p]) => path === p || path.startsWith(`${p}/`))?.[1] ?? "Called the extension API";
      return [`${what} (${str("method")} ${path})`, "Allowed", "good"];
    }
    case "message.sent":
    case "message.queued": {
      const to = e.counterpartyId ? ` to ${shortId(e.counterpartyId)}` : "";
      const held = str("status") === "pending_approval";
      return [`Sent “${intentLabel(str("intent"))}”${to}`, held ? "Waiting for your approval" : "Sent", held ? "warn" : "good"];
    }
    default:
      return [e.eventType, "Recorded", "neutral"];
  }
}

/** The installation's hash-chained audit trail, newest first, a page at a time, with whether the whole chain verifies. */
export function AuditTrail({ installationId }: { installationId: string }) {
  const [offset, setOffset] = useState(0);
  const state = useLoad(() => api<Trail>(`/extensions/${encodeURIComponent(installationId)}/audit${qs({ limit: PAGE, offset })}`), `audit:${installationId}:${offset}`);
  return (
    <Section title="Audit trail">
      <Loaded state={state}>
        {(t) => (
          <>
            <p class="row wrap" data-testid="chain-state">
              {t.chain.verified ? <Badge tone="good">Chain verified</Badge> : <Badge tone="bad">Chain broken</Badge>}
              <span class="muted small">
                {t.chain.verified ? `All ${t.total} signed records link to each other; none was changed or removed.` : `Record ${(t.chain.index ?? 0) + 1} does not link to the one before (${t.chain.reason ?? "unknown"}): the log was altered.`}
              </span>
            </p>
            <Table
              caption={`Everything this extension did, newest first (${t.total === 0 ? "none" : `${offset + 1}–${offset + t.events.length} of ${t.total}`})`}
              columns={[
                { label: "What", cell: (e) => describe(e)[0] },
                { label: "Outcome", cell: (e) => { const [, o, tone] = describe(e); return <Badge tone={tone}>{o}</Badge>; } },
                { label: "When", cell: (e) => <When iso={e.timestamp} /> },
                { label: "Record", cell: (e) => <span class="muted small">#{e.sequence}</span> },
              ]}
              rows={t.events}
            />
            {t.total > PAGE && (
              <div class="row">
                <Button small disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>Newer</Button>
                <Button small disabled={offset + PAGE >= t.total} onClick={() => setOffset(offset + PAGE)}>Older</Button>
              </div>
            )}
          </>
        )}
      </Loaded>
    </Section>
  );
}
