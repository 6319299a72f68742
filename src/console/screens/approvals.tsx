/** @jsxImportSource preact */
import { useState } from "preact/hooks";
import { api, qs, type Page } from "../lib/api.ts";
import { intentLabel } from "../lib/format.ts";
import { useLoad } from "../lib/live.ts";
import { draftedReply, type PendingAction } from "../lib/messages.ts";
import { usePeople } from "../lib/people.ts";
import { link } from "../lib/router.ts";
import { Avatar, Badge, Button, Empty, Filters, Loaded, Notice, PageHeader, useAction, When } from "../ui/kit.tsx";
import { PayloadView } from "../ui/payload.tsx";

const KIND_TEXT: Record<PendingAction["kind"], string> = {
  connection_request: "Wants to connect",
  inbound_intent: "Waiting for your go-ahead",
  outbound_intent: "Your agent wants to send",
};
type Filter = "pending" | "approved" | "rejected";
const FILTERS = [["pending", "Waiting"], ["approved", "Approved"], ["rejected", "Rejected"]] as const;

/** What the agent holds for the owner (SPEC autonomy rule): approve runs it, reject drops it. */
export function Approvals() {
  const [filter, setFilter] = useState<Filter>("pending");
  const pending = useLoad(() => api<Page<PendingAction>>(`/pending${qs({ status: filter, limit: 100 })}`), filter);
  const people = usePeople();
  return (
    <>
      <PageHeader title="Approvals" subtitle="Your agent asks before it acts on these. New requests appear here on their own." />
      <div class="toolbar"><Filters label="Show" value={filter} options={FILTERS} onChange={setFilter} /></div>
      <Loaded state={pending}>
        {(page) =>
          page.items.length === 0 ? (
            <Empty title={filter === "pending" ? "Nothing waits for you" : "Nothing here yet"}>
              {filter === "pending" ? "Connection requests and messages your autonomy settings hold for you will show up here." : "Decisions you take are kept here."}
            </Empty>
          ) : (
            <ul class="cards" aria-label="Pending actions">
              {page.items.map((p) => <Approval p={p} name={people.name} onDecided={pending.reload} />)}
            </ul>
          )
        }
      </Loaded>
    </>
  );
}

function Approval({ p, name, onDecided }: { p: PendingAction; name: (agentId: string | null | undefined) => string; onDecided: () => void }) {
  const action = useAction();
  const m = p.message;
  const who = name(m?.from ?? m?.to);
  const reply = draftedReply(p.action);
  // An extension's intent held above its tier names the extension (its action records which).
  const extension = p.action && typeof (p.action as { extensionId?: unknown }).extensionId === "string" ? (p.action as { extensionId: string }).extensionId : null;
  const snapshot = m?.intent === "connection_request" ? (m.payload.profileSnapshot as Record<string, unknown> | undefined) : undefined;
  const decide = (decision: "approve" | "reject") =>
    action.run(decision, () => api(`/pending/${encodeURIComponent(p.id)}`, { body: { decision } }).then(onDecided), decision === "approve" ? "Approved" : "Rejected");
  return (
    <li class="card approval">
      <div class="approval-head">
        <Avatar name={who} />
        <div>
          <p class="item-title"><strong>{who}</strong></p>
          <p class="muted">{extension ? `The extension ${extension} wants to send` : KIND_TEXT[p.kind]} · <When iso={p.createdAt} /></p>
        </div>
        {p.status !== "pending" && <Badge tone={p.status === "approved" ? "good" : "neutral"}>{p.status === "approved" ? "Approved" : "Rejected"}</Badge>}
      </div>
      {m && (
        <div class="approval-body">
          <p class="intent">{intentLabel(m.intent)}</p>
          {snapshot ? (
            <>
              {typeof m.payload.context === "string" && <p class="quote">{m.payload.context}</p>}
              <PayloadView payload={snapshot} />
            </>
          ) : (
            <PayloadView payload={m.payload} />
          )}
        </div>
      )}
      {reply && (
        <div class="draft">
          <p class="draft-title">Drafted reply · {intentLabel(reply.intent)}</p>
          <PayloadView payload={reply.payload} />
        </div>
      )}
      <p class="muted small">{p.reason}</p>
      {action.error && <Notice tone="bad">{action.error}</Notice>}
      {p.status === "pending" && (
        <div class="row">
          <Button kind="primary" busy={action.busy === "approve"} onClick={() => void decide("approve")}>
            {p.kind === "connection_request" ? "Accept" : reply ? "Approve and send reply" : "Approve"}
          </Button>
          <Button kind="secondary" busy={action.busy === "reject"} onClick={() => void decide("reject")}>{p.kind === "connection_request" ? "Decline" : "Reject"}</Button>
          {m && <a class="btn btn-ghost" href={link("threads", m.conversationId)}>Open thread</a>}
        </div>
      )}
    </li>
  );
}
