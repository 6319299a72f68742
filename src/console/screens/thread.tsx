/** @jsxImportSource preact */
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../lib/api.ts";
import { intentLabel } from "../lib/format.ts";
import { emptyValues, INTENT_FORMS, payloadOf, valuesOf, type FormValues } from "../lib/intents.ts";
import { useLoad } from "../lib/live.ts";
import { peerName, STATUS_TEXT, STATUS_TONE, type Conversation, type Message } from "../lib/messages.ts";
import { link } from "../lib/router.ts";
import { Badge, Button, ConfirmButton, Loaded, Notice, PageHeader, Section, useAction, When } from "../ui/kit.tsx";
import { PayloadFields, PayloadView } from "../ui/payload.tsx";

/** Request intents and the `_response` that answers each (INK §3.3). */
export const RESPONSE_OF: Record<string, string> = {
  ask: "ask_response",
  schedule_meeting: "schedule_meeting_response",
  intro_request: "intro_response",
  opportunity: "opportunity_response",
  connection_request: "connection_response",
};

type Detail = Conversation & { messages: Message[] };

export function Thread({ id }: { id: string }) {
  const thread = useLoad(() => api<Detail>(`/conversations/${encodeURIComponent(id)}`), `thread:${id}`);
  const seen = useRef(new Set<string>());
  // Opening a message marks it read (GET /inbox/:id); the thread view reads them all at once.
  useEffect(() => {
    for (const m of thread.data?.messages ?? []) {
      if (m.direction === "inbound" && m.status === "unread" && !seen.current.has(m.id)) {
        seen.current.add(m.id);
        void api(`/inbox/${encodeURIComponent(m.id)}`).catch(() => seen.current.delete(m.id));
      }
    }
  }, [thread.data]);
  return (
    <Loaded state={thread}>
      {(t) => {
        const open = [...t.messages].reverse().find((m) => m.direction === "inbound" && RESPONSE_OF[m.intent] && (m.status === "unread" || m.status === "read" || m.status === "pending"));
        return (
          <>
            <PageHeader title={peerName(t)} subtitle={t.subject ?? "Conversation"} actions={<a class="btn btn-ghost" href={link("threads")}>All threads</a>} />
            <ol class="messages" aria-label="Messages in this thread">
              {t.messages.map((m) => <Bubble m={m} thread={t} onChange={thread.reload} />)}
            </ol>
            {open && <Reply key={open.id} message={open} onSent={thread.reload} />}
            <Summary id={t.id} />
          </>
        );
      }}
    </Loaded>
  );
}

function Bubble({ m, thread, onChange }: { m: Message; thread: Detail; onChange: () => void }) {
  const action = useAction();
  const out = m.direction === "outbound";
  const state = out ? (m.delivery?.state ?? m.status) : m.status;
  const retract = () =>
    action.run("retract", () => api("/intents", { body: { to: thread.peer.agentId, intent: "retract", payload: { targetMessageId: m.id }, correlationId: thread.correlationId } }).then(onChange), "Retraction sent");
  return (
    <li class={out ? "bubble bubble-out" : "bubble bubble-in"}>
      <div class="bubble-head">
        <strong>{out ? "You" : peerName(thread)}</strong> · <span class="intent">{intentLabel(m.intent)}</span> · <When iso={m.receivedAt} />
      </div>
      <PayloadView payload={m.payload} />
      <div class="bubble-foot">
        {state !== "read" && <Badge tone={STATUS_TONE[state] ?? "neutral"}>{STATUS_TEXT[state] ?? state}</Badge>}
        {m.sealed && <Badge>Encrypted</Badge>}
        {(m.labels ?? []).map((l) => <Badge tone="accent">{l}</Badge>)}
        {out && m.delivery?.state === "queued" && m.delivery.attempts > 0 && (
          <span class="muted">Attempt {m.delivery.attempts} failed ({m.delivery.lastError}); next try <When iso={m.delivery.nextAttemptAt} /></span>
        )}
        {out && m.delivery?.state === "failed" && <span class="muted">{m.delivery.lastError}</span>}
        {out && m.intent !== "retract" && thread.peer.agentId && (
          <ConfirmButton small confirm="Retract this message" busy={action.busy === "retract"} onConfirm={() => void retract()}>Retract</ConfirmButton>
        )}
      </div>
      {action.error && <Notice tone="bad">{action.error}</Notice>}
    </li>
  );
}

/** Answer the open request with its `_response`, typed by hand or drafted by the agent. */
function Reply({ message, onSent }: { message: Message; onSent: () => void }) {
  const intent = RESPONSE_OF[message.intent]!;
  const fields = INTENT_FORMS[intent] ?? [];
  const [values, setValues] = useState<FormValues>(() => emptyValues(fields));
  const [note, setNote] = useState<string | null>(null);
  const action = useAction();
  const draft = () =>
    action.run("draft", async () => {
      const d = await api<{ draft: { payload: Record<string, unknown>; note: string }; backend: string; fallbackReason?: string }>(`/inbox/${encodeURIComponent(message.id)}/draft`, { method: "POST" });
      setValues(valuesOf(fields, d.draft.payload));
      setNote(`${d.draft.note}${d.backend === "builtin" ? " (drafted by the built-in assistant)" : ""}`);
    });
  const send = () => action.run("send", () => api(`/inbox/${encodeURIComponent(message.id)}/respond`, { body: { payload: payloadOf(fields, values) } }).then(onSent), "Reply queued for delivery");
  return (
    <Section title={`Reply: ${intentLabel(intent).toLowerCase()}`} actions={<Button small kind="ghost" busy={action.busy === "draft"} onClick={() => void draft()}>Draft a reply</Button>}>
      <form class="stack" onSubmit={(e) => { e.preventDefault(); void send(); }}>
        {note && <Notice>{note}</Notice>}
        <PayloadFields fields={fields} values={values} onChange={setValues} />
        {action.error && <Notice tone="bad">{action.error}</Notice>}
        <div class="row"><Button kind="primary" type="submit" busy={action.busy === "send"}>Send reply</Button></div>
      </form>
    </Section>
  );
}

function Summary({ id }: { id: string }) {
  const [summary, setSummary] = useState<string | null>(null);
  const action = useAction();
  const summarize = () => action.run("sum", async () => setSummary((await api<{ summary: string }>(`/conversations/${encodeURIComponent(id)}/summarize`, { method: "POST" })).summary));
  return (
    <Section title="Summary" actions={<Button small kind="ghost" busy={action.busy === "sum"} onClick={() => void summarize()}>{summary ? "Summarize again" : "Summarize"}</Button>}>
      {action.error && <Notice tone="bad">{action.error}</Notice>}
      {summary ? <p class="prewrap">{summary}</p> : <p class="muted">Ask your agent for a short summary of this thread.</p>}
    </Section>
  );
}
