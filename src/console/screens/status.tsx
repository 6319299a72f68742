/** @jsxImportSource preact */
import { api, publicJson } from "../lib/api.ts";
import { shortId } from "../lib/format.ts";
import { useLoad } from "../lib/live.ts";
import { link } from "../lib/router.ts";
import { Badge, Button, ConfirmButton, Loaded, Notice, PageHeader, Row, Section, Table, toast, useAction, When } from "../ui/kit.tsx";

interface Identity {
  agentId: string;
  handle: string;
  displayName: string;
  timezone: string;
  cardUrl: string;
  endpoint: string;
  keySetVersion: number;
  visibility: "public" | "private";
  createdAt: string;
}
interface Key {
  keyId: string;
  role: "signing" | "encryption";
  status: "active" | "retired" | "revoked";
  validFrom: string;
  validUntil: string | null;
  revokedAt: string | null;
}
interface Outbox {
  queued: number;
  failed: number;
  delivered: number;
  oldestQueuedAt: string | null;
  nextAttemptAt: string | null;
  peers: Array<{ peerPrincipal: string; agentId: string | null; displayName: string | null; connectionId: string | null; queued: number; failed: number; failing: boolean; lastError: string | null; lastAttemptAt: string | null; nextAttemptAt: string | null }>;
}

/** Who the agent is, how to reach it, its keys, what is still on its way out, and the node's version. */
export function Status() {
  const identity = useLoad(() => api<Identity>(""), "identity");
  const health = useLoad(() => publicJson<{ status: string; version: string; database: string }>("/health"), "health");
  return (
    <>
      <PageHeader title="Node status" subtitle={health.data ? <>Kith {health.data.version} · {health.data.status === "ok" ? "running normally" : "degraded: the database does not answer"}</> : "Your agent and the node it runs on."} />
      <Loaded state={identity}>{(id) => <IdentityCard id={id} onChange={identity.reload} />}</Loaded>
      <OutboxCard />
      <KeysCard />
    </>
  );
}

function Copy({ text, label }: { text: string; label: string }) {
  return <Button small kind="ghost" onClick={() => navigator.clipboard?.writeText(text).then(() => toast(`${label} copied`), () => toast("Copy failed: select the text instead"))} aria-label={`Copy ${label}`}>Copy</Button>;
}

function IdentityCard({ id, onChange }: { id: Identity; onChange: () => void }) {
  const action = useAction();
  const setVisibility = (visibility: Identity["visibility"]) => action.run("vis", () => api("/visibility", { method: "PUT", body: { visibility } }).then(onChange), visibility === "public" ? "Your card is public" : "Your card is private");
  return (
    <Section title="Your agent">
      <dl class="facts">
        <div><dt>Name</dt><dd>{id.displayName} <span class="muted">@{id.handle}</span></dd></div>
        <div><dt>Agent id</dt><dd><code class="breakall">{id.agentId}</code> <Copy text={id.agentId} label="agent id" /></dd></div>
        <div><dt>Agent Card</dt><dd><a class="breakall" href={id.cardUrl} target="_blank" rel="noopener noreferrer">{id.cardUrl}</a> <Copy text={id.cardUrl} label="card URL" /></dd></div>
        <div><dt>Inbound endpoint</dt><dd><code class="breakall">{id.endpoint}</code></dd></div>
        <div><dt>Card visibility</dt><dd><Badge tone={id.visibility === "public" ? "good" : "neutral"}>{id.visibility === "public" ? "Public" : "Private"}</Badge> <span class="muted">{id.visibility === "public" ? "Anyone with the URL can read your card." : "Only your connections can fetch your card."}</span></dd></div>
      </dl>
      {action.error && <Notice tone="bad">{action.error}</Notice>}
      <div class="row">
        {id.visibility === "public"
          ? <ConfirmButton confirm="Make my card private" busy={action.busy === "vis"} onConfirm={() => void setVisibility("private")}>Make private</ConfirmButton>
          : <Button busy={action.busy === "vis"} onClick={() => void setVisibility("public")}>Make public</Button>}
      </div>
    </Section>
  );
}

function OutboxCard() {
  const outbox = useLoad(() => api<Outbox>("/outbox"), "outbox");
  return (
    <Section title="Outgoing messages">
      <Loaded state={outbox}>
        {(o) => (
          <>
            <div class="stats">
              <div class="stat"><span class="stat-value">{o.queued}</span><span class="stat-label">waiting to be delivered</span></div>
              <div class="stat"><span class="stat-value">{o.failed}</span><span class="stat-label">could not be delivered</span></div>
              <div class="stat"><span class="stat-value">{o.delivered}</span><span class="stat-label">delivered</span></div>
            </div>
            {o.queued > 0 && <p class="muted">Oldest waiting since <When iso={o.oldestQueuedAt} />; next try <When iso={o.nextAttemptAt} />.</p>}
            {o.peers.length === 0 ? <p class="muted">Every peer is reachable.</p> : (
              <ul class="list" aria-label="Peers with a backlog or failing">
                {o.peers.map((p) => (
                  <Row
                    title={p.displayName ?? shortId(p.agentId ?? p.peerPrincipal)}
                    meta={p.failing ? <Badge tone="bad">Failing</Badge> : <Badge>Backlog</Badge>}
                    sub={<>{p.queued} waiting{p.failed ? `, ${p.failed} failed` : ""}{p.lastError && ` · last error: ${p.lastError}`}{p.nextAttemptAt && <> · next try <When iso={p.nextAttemptAt} /></>}</>}
                  >
                    {p.connectionId && <a href={link("connections", p.connectionId)}>Open connection</a>}
                  </Row>
                ))}
              </ul>
            )}
          </>
        )}
      </Loaded>
    </Section>
  );
}

function KeysCard() {
  const keys = useLoad(() => api<Key[]>("/keys"), "keys", { live: false });
  const action = useAction();
  const rotate = () => action.run("rotate", () => api("/keys/rotate", { method: "POST" }).then(keys.reload), "New signing key active");
  const revoke = (k: Key) => action.run(k.keyId, () => api(`/keys/${encodeURIComponent(k.keyId)}/revoke`, { method: "POST" }).then(keys.reload), `Key ${k.keyId} revoked`);
  return (
    <Section title="Keys" actions={<ConfirmButton small confirm="Rotate the signing key" busy={action.busy === "rotate"} onConfirm={() => void rotate()}>Rotate signing key</ConfirmButton>}>
      <p class="muted">Your agent signs with these. Rotate now and then; revoke a key only if it may have leaked: it then verifies nothing, not even old messages.</p>
      {action.error && <Notice tone="bad">{action.error}</Notice>}
      <Loaded state={keys}>
        {(list) => (
          <Table
            rows={list}
            columns={[
              { label: "Key", cell: (k) => <code>{k.keyId}</code> },
              { label: "Use", cell: (k) => (k.role === "signing" ? "Signing" : "Encryption") },
              { label: "Status", cell: (k) => <Badge tone={k.status === "active" ? "good" : k.status === "revoked" ? "bad" : "neutral"}>{k.status}</Badge> },
              { label: "Since", cell: (k) => <When iso={k.validFrom} /> },
              { label: "Actions", hideLabel: true, cell: (k) => k.status !== "revoked" && <ConfirmButton small confirm={`Revoke ${k.keyId}`} busy={action.busy === k.keyId} onConfirm={() => void revoke(k)}>Revoke</ConfirmButton> },
            ]}
          />
        )}
      </Loaded>
    </Section>
  );
}
