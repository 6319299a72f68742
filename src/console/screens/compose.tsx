/** @jsxImportSource preact */
import { useState } from "preact/hooks";
import { api } from "../lib/api.ts";
import { intentLabel } from "../lib/format.ts";
import { emptyValues, INTENT_FORMS, payloadOf, SENDABLE, type FormValues } from "../lib/intents.ts";
import { useLoad } from "../lib/live.ts";
import { STATUS_TEXT, STATUS_TONE, type Message } from "../lib/messages.ts";
import { personName, usePeople } from "../lib/people.ts";
import { link, type Route } from "../lib/router.ts";
import { Badge, Button, Field, Filters, Notice, PageHeader, Section, useAction, When } from "../ui/kit.tsx";
import { PayloadFields } from "../ui/payload.tsx";

interface Sent {
  id: string;
  conversationId: string;
}

/**
 * Send an intent to a connection, to any Agent Card URL, or to an agent found in Discovery
 * (`#/send?cardUrl=…&name=…`); then follow its delivery state live.
 */
export function Compose({ route }: { route: Route }) {
  const people = usePeople();
  const cardUrlParam = route.query.get("cardUrl") ?? "";
  const [mode, setMode] = useState<"connection" | "card">(cardUrlParam ? "card" : "connection");
  const [to, setTo] = useState(route.query.get("to") ?? "");
  const [cardUrl, setCardUrl] = useState(cardUrlParam);
  const [intent, setIntent] = useState<string>("ask");
  const [values, setValues] = useState<FormValues>(() => emptyValues(INTENT_FORMS.ask!));
  const [sent, setSent] = useState<Sent | null>(null);
  const action = useAction();
  const connected = people.list.filter((c) => c.agentId && c.status === "connected");
  const fields = INTENT_FORMS[intent] ?? [];
  const chooseIntent = (next: string) => {
    setIntent(next);
    setValues(emptyValues(INTENT_FORMS[next] ?? []));
  };
  const send = () =>
    action.run("send", async () => {
      const recipient = mode === "card" ? { cardUrl: cardUrl.trim() } : { to };
      setSent(await api<Sent>("/intents", { body: { ...recipient, intent, payload: payloadOf(fields, values) } }));
      setValues(emptyValues(fields));
    }, "Message queued for delivery");
  return (
    <>
      <PageHeader title="Send a message" subtitle={route.query.get("name") ? `To ${route.query.get("name")}` : "To a connection, or to any agent by its card."} />
      {sent && <Delivery sent={sent} onNew={() => setSent(null)} />}
      <Section title="Message">
        <form class="stack" onSubmit={(e) => { e.preventDefault(); void send(); }}>
          <Filters label="Send to" value={mode} options={[["connection", "A connection"], ["card", "An Agent Card URL"]] as const} onChange={setMode} />
          {mode === "connection" ? (
            <Field label="Recipient" hint={connected.length === 0 ? "You have no connections yet: use an Agent Card URL, or connect first." : undefined}>
              {(id, hint) => (
                <select id={id} required aria-describedby={hint} value={to} onChange={(e) => setTo(e.currentTarget.value)}>
                  <option value="">Choose a connection</option>
                  {connected.map((c) => <option value={c.agentId!}>{personName(c)}</option>)}
                </select>
              )}
            </Field>
          ) : (
            <Field label="Agent Card URL" hint="Strangers only accept a connection request until they connect with you.">
              {(id, hint) => <input id={id} type="url" required placeholder="https://…/agent.json" value={cardUrl} aria-describedby={hint} onInput={(e) => setCardUrl(e.currentTarget.value)} />}
            </Field>
          )}
          <Field label="Kind of message">
            {(id) => (
              <select id={id} value={intent} onChange={(e) => chooseIntent(e.currentTarget.value)}>
                {SENDABLE.map((i) => <option value={i}>{intentLabel(i)}</option>)}
              </select>
            )}
          </Field>
          <PayloadFields fields={fields} values={values} onChange={setValues} />
          {action.error && <Notice tone="bad">{action.error}</Notice>}
          <div class="row"><Button kind="primary" type="submit" busy={action.busy === "send"}>Send</Button></div>
        </form>
      </Section>
    </>
  );
}

/** The sent message's delivery state, re-read on every tick until it settles. */
function Delivery({ sent, onNew }: { sent: Sent; onNew: () => void }) {
  const msg = useLoad(() => api<Message>(`/intents/${encodeURIComponent(sent.id)}`), `sent:${sent.id}`);
  const d = msg.data?.delivery;
  const state = d?.state ?? "queued";
  return (
    <section class="card delivery" aria-label="Delivery">
      <p>
        <strong>Delivery: </strong>
        <Badge tone={STATUS_TONE[state] ?? "neutral"}>{STATUS_TEXT[state] ?? state}</Badge>
        {d?.state === "delivered" && <span class="muted"> <When iso={d.deliveredAt} /></span>}
      </p>
      {d && d.state === "queued" && d.attempts > 0 && <p class="muted">Attempt {d.attempts} did not get through ({d.lastError}). Next try <When iso={d.nextAttemptAt} />.</p>}
      {d?.state === "failed" && <Notice tone="bad">Not delivered: {d.lastError ?? "the peer refused it"}</Notice>}
      <div class="row">
        <a class="btn btn-secondary" href={link("threads", sent.conversationId)}>Open the thread</a>
        <Button kind="ghost" onClick={onNew}>Dismiss</Button>
      </div>
    </section>
  );
}
