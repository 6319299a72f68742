/** @jsxImportSource preact */
import { useState } from "preact/hooks";
import { api } from "../lib/api.ts";
import { shortId } from "../lib/format.ts";
import { useLoad } from "../lib/live.ts";
import { Badge, Button, ConfirmButton, Empty, Field, Loaded, Notice, PageHeader, Row, Section, useAction, When } from "../ui/kit.tsx";

interface Mailbox { id: string; agentId: string; status: "active" | "revoked"; maxMessages: number; maxBytes: number; retentionHours: number; messages: number; bytes: number; cardPublishedAt: string | null; lastDrainAt: string | null; createdAt: string; revokedAt: string | null }
interface MailboxUse { url: string | null; endpoint: string | null; cardUrl: string | null; cardPublishedAt: string | null; lastDrainAt: string | null; lastError: string | null; received: number; refused: number }

const kb = (bytes: number) => (bytes < 1024 * 1024 ? `${Math.round(bytes / 1024)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`);

/**
 * Mailboxes (docs/decisions/mailbox.md): on a home node behind NAT, the one it is reached through;
 * on a public node, the mailboxes it keeps for other agents (grant, what waits, revoke).
 */
export function Mailboxes() {
  const use = useLoad(() => api<MailboxUse>("/mailbox"), "mailbox-use");
  const kept = useLoad(() => api<{ items: Mailbox[] }>("/mailboxes"), "mailboxes");
  return (
    <>
      <PageHeader title="Mailboxes" subtitle="For nodes that cannot be reached directly: messages wait in a mailbox on a public node until collected." />
      <Section title="This node's mailbox">
        <Loaded state={use}>
          {(m) =>
            m.url === null ? <p>This node is reached at its own public URL; it uses no mailbox.</p> : (
              <dl class="facts">
                <div><dt>Mailbox</dt><dd class="breakall">{m.url}</dd></div>
                <div><dt>Card there</dt><dd>{m.cardUrl ? <span class="breakall">{m.cardUrl}</span> : "not published yet"} {m.cardPublishedAt && <>· published <When iso={m.cardPublishedAt} /></>}</dd></div>
                <div><dt>Last collected</dt><dd><When iso={m.lastDrainAt} /></dd></div>
                <div><dt>Messages</dt><dd>{m.received} received · {m.refused} refused</dd></div>
                {m.lastError && <div><dt>Last error</dt><dd><Badge tone="bad">{m.lastError}</Badge></dd></div>}
              </dl>
            )
          }
        </Loaded>
      </Section>
      <Section title="Mailboxes you keep for others">
        <Grant />
        <Loaded state={kept}>
          {({ items: mailboxes }) =>
            mailboxes.length === 0 ? <Empty title="No mailboxes granted">Grant one to a friend's home node by its agent id; its messages then wait here until it collects them.</Empty> : (
              <ul class="list" aria-label="Mailboxes granted">{mailboxes.map((m) => <Kept m={m} />)}</ul>
            )
          }
        </Loaded>
      </Section>
    </>
  );
}

function Grant() {
  const action = useAction();
  const [agentId, setAgentId] = useState("");
  const [maxMessages, setMaxMessages] = useState(1000);
  const [retentionHours, setRetentionHours] = useState(168);
  return (
    <form class="stack" onSubmit={(e) => { e.preventDefault(); void action.run("grant", async () => { await api("/mailboxes", { body: { agentId: agentId.trim(), maxMessages, retentionHours } }); setAgentId(""); }, "Mailbox granted"); }}>
      <Field label="Agent id" hint="The home node's key-derived agent id (svc:z…), as its owner sees it on Node status.">
        {(id, hint) => <input id={id} required maxLength={256} class="mono" aria-describedby={hint} value={agentId} onInput={(e) => setAgentId(e.currentTarget.value)} />}
      </Field>
      <div class="row wrap">
        <Field label="Messages at most" inline>{(id) => <input id={id} type="number" min={1} required value={maxMessages} onInput={(e) => setMaxMessages(Number(e.currentTarget.value))} />}</Field>
        <Field label="Kept for (hours)" inline>{(id) => <input id={id} type="number" min={1} max={720} required value={retentionHours} onInput={(e) => setRetentionHours(Number(e.currentTarget.value))} />}</Field>
      </div>
      {action.error && <Notice tone="bad">{action.error}</Notice>}
      <div class="row"><Button kind="primary" type="submit" busy={action.busy === "grant"}>Grant a mailbox</Button></div>
    </form>
  );
}

function Kept({ m }: { m: Mailbox }) {
  const action = useAction();
  return (
    <Row
      title={<span class="mono">{shortId(m.agentId)}</span>}
      meta={<>granted <When iso={m.createdAt} /></>}
      sub={m.status === "revoked" ? <>Revoked <When iso={m.revokedAt} /></> : <>{m.messages} waiting ({kb(m.bytes)} of {kb(m.maxBytes)}) · last collected <When iso={m.lastDrainAt} /> · kept {m.retentionHours} h</>}
      tags={<>{m.status === "active" ? <Badge tone="good">Active</Badge> : <Badge>Revoked</Badge>}{m.cardPublishedAt ? <Badge tone="accent">card published</Badge> : <Badge>no card yet</Badge>}</>}
    >
      {m.status === "active" && <div class="row"><ConfirmButton small confirm="Revoke and delete its messages" busy={action.busy === "revoke"} onConfirm={() => void action.run("revoke", () => api(`/mailboxes/${encodeURIComponent(m.agentId)}/revoke`, { method: "POST" }), "Mailbox revoked")}>Revoke</ConfirmButton></div>}
      {action.error && <Notice tone="bad">{action.error}</Notice>}
    </Row>
  );
}
