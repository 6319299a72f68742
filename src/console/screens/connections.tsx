/** @jsxImportSource preact */
import { useState } from "preact/hooks";
import { api, qs, type Page } from "../lib/api.ts";
import { HEALTH_LABELS, LAYER_LABELS, LAYERS } from "../lib/format.ts";
import { useLoad } from "../lib/live.ts";
import { HEALTH_TONE, personName, STATUS_LABEL, type Connection } from "../lib/people.ts";
import { link, type Route } from "../lib/router.ts";
import { Badge, Button, Empty, Field, Filters, Loaded, Notice, PageHeader, Row, Section, useAction, When } from "../ui/kit.tsx";
import { ConnectionDetail } from "./connection.tsx";

type Filter = "connected" | "pending" | "requested" | "all" | "blocked";
const FILTERS = [["connected", "Connected"], ["pending", "Requests"], ["requested", "Sent"], ["all", "Everyone"], ["blocked", "Blocked"]] as const;

/** People the agent knows, by circle (Dunbar layer) and relationship health; `#/connections/<id>` opens one. */
export function Connections({ route }: { route: Route }) {
  if (route.rest[0]) return <ConnectionDetail id={route.rest[0]} />;
  return <ConnectionList />;
}

function ConnectionList() {
  const [filter, setFilter] = useState<Filter>("connected");
  const [layer, setLayer] = useState("");
  const list = useLoad(() => api<Page<Connection>>(`/connections${qs({ status: filter === "all" ? undefined : filter, layer: layer || undefined, limit: 200 })}`), `${filter}|${layer}`);
  return (
    <>
      <PageHeader title="Connections" subtitle="Your circles, closest first, and how each relationship is doing." />
      <Connect onDone={list.reload} />
      <div class="toolbar">
        <Filters label="Show" value={filter} options={FILTERS} onChange={setFilter} />
        <label class="inline-select">
          <span>Circle</span>
          <select value={layer} onChange={(e) => setLayer(e.currentTarget.value)}>
            <option value="">All circles</option>
            {LAYERS.map((l) => <option value={l}>{LAYER_LABELS[l]}</option>)}
          </select>
        </label>
      </div>
      <Loaded state={list}>
        {(page) =>
          page.items.length === 0 ? (
            <Empty title={filter === "pending" ? "No requests" : "No one here yet"}>
              {filter === "connected" ? "Connect to someone by their Agent Card URL above, or find people in Discovery." : "Nothing matches this filter."}
            </Empty>
          ) : (
            <ul class="list" aria-label="Connections">
              {page.items.map((c) => (
                <Row
                  href={link("connections", c.id)}
                  avatar={personName(c)}
                  title={personName(c)}
                  meta={c.lastMessageAt ? <>Last message <When iso={c.lastMessageAt} /></> : "No messages yet"}
                  sub={c.handle ? `@${c.handle}` : c.company ?? ""}
                  tags={
                    <>
                      {c.status !== "connected" && <Badge tone={c.status === "pending" ? "warn" : "neutral"}>{STATUS_LABEL[c.status] ?? c.status}</Badge>}
                      <Badge tone="accent">{LAYER_LABELS[c.layer] ?? c.layer}</Badge>
                      {c.health && <Badge tone={HEALTH_TONE[c.health] ?? "neutral"}>{HEALTH_LABELS[c.health]}</Badge>}
                    </>
                  }
                />
              ))}
            </ul>
          )
        }
      </Loaded>
    </>
  );
}

/** Connect by Agent Card URL: the node fetches the card and sends a connection_request. */
export function Connect({ onDone, initialUrl = "" }: { onDone: () => void; initialUrl?: string }) {
  const [open, setOpen] = useState(!!initialUrl);
  const [cardUrl, setCardUrl] = useState(initialUrl);
  const [context, setContext] = useState("");
  const action = useAction();
  if (!open) return <div class="row"><Button kind="secondary" onClick={() => setOpen(true)}>Connect to someone</Button></div>;
  const connect = () =>
    action.run("connect", async () => {
      await api("/connections", { body: { cardUrl: cardUrl.trim(), ...(context.trim() ? { context: context.trim() } : {}) } });
      setCardUrl("");
      setContext("");
      setOpen(false);
      onDone();
    }, "Connection request sent");
  return (
    <Section title="Connect to someone">
      <form class="stack" onSubmit={(e) => { e.preventDefault(); void connect(); }}>
        <Field label="Their Agent Card URL" hint="They find it on their own node's status page.">
          {(id, hint) => <input id={id} type="url" required placeholder="https://…/agent.json" value={cardUrl} aria-describedby={hint} onInput={(e) => setCardUrl(e.currentTarget.value)} />}
        </Field>
        <Field label="How you know each other (optional)">{(id) => <textarea id={id} rows={2} value={context} onInput={(e) => setContext(e.currentTarget.value)} />}</Field>
        {action.error && <Notice tone="bad">{action.error}</Notice>}
        <div class="row">
          <Button kind="primary" type="submit" busy={action.busy === "connect"}>Send request</Button>
          <Button kind="ghost" onClick={() => setOpen(false)}>Cancel</Button>
        </div>
      </form>
    </Section>
  );
}
