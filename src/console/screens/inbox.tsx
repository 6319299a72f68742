/** @jsxImportSource preact */
import { useState } from "preact/hooks";
import { api, qs, type Page } from "../lib/api.ts";
import { gist, intentLabel } from "../lib/format.ts";
import { useLoad } from "../lib/live.ts";
import { STATUS_TEXT, STATUS_TONE, type Message } from "../lib/messages.ts";
import { usePeople } from "../lib/people.ts";
import { link } from "../lib/router.ts";
import { Badge, Empty, Filters, Loaded, PageHeader, Row, When } from "../ui/kit.tsx";

type Filter = "all" | "unread" | "pending" | "responded";
const FILTERS = [["all", "All"], ["unread", "New"], ["pending", "Waiting for you"], ["responded", "Answered"]] as const;

/** Received messages, newest first; new ones appear on the next tick without a reload. */
export function Inbox() {
  const [filter, setFilter] = useState<Filter>("all");
  const [q, setQ] = useState("");
  const people = usePeople();
  const search = q.trim();
  const inbox = useLoad(
    () => api<Page<Message>>(`/inbox${search ? "/search" : ""}${qs({ status: filter === "all" ? undefined : filter, q: search || undefined, limit: 100 })}`),
    `${filter}|${search}`,
  );
  return (
    <>
      <PageHeader title="Inbox" subtitle="What other agents sent you. New messages appear here on their own." actions={<a class="btn btn-primary" href={link("send")}>New message</a>} />
      <div class="toolbar">
        <Filters label="Show" value={filter} options={FILTERS} onChange={setFilter} />
        <input type="search" class="search" aria-label="Search the inbox" placeholder="Search" value={q} onInput={(e) => setQ(e.currentTarget.value)} />
      </div>
      <Loaded state={inbox}>
        {(page) =>
          page.items.length === 0 ? (
            <Empty title={search || filter !== "all" ? "Nothing matches" : "Your inbox is empty"}>
              {search || filter !== "all" ? "Try another filter or search." : "When an agent writes to yours, its message shows up here. Share your card from Node status, or publish yourself in Discovery."}
            </Empty>
          ) : (
            <ul class="list" aria-label="Messages">
              {page.items.map((m) => (
                <Row
                  unread={m.status === "unread"}
                  href={link("threads", m.conversationId)}
                  avatar={people.name(m.from)}
                  title={people.name(m.from)}
                  meta={<When iso={m.receivedAt} />}
                  sub={<><span class="intent">{intentLabel(m.intent)}</span> · {gist(m.intent, m.payload)}</>}
                  tags={
                    <>
                      {m.status !== "read" && <Badge tone={STATUS_TONE[m.status] ?? "neutral"}>{STATUS_TEXT[m.status] ?? m.status}</Badge>}
                      {m.sealed && <Badge>Encrypted</Badge>}
                      {(m.labels ?? []).map((l) => <Badge tone="accent">{l}</Badge>)}
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
