/** @jsxImportSource preact */
import { api, type Page } from "../lib/api.ts";
import { useLoad } from "../lib/live.ts";
import { peerName, type Conversation } from "../lib/messages.ts";
import { link, type Route } from "../lib/router.ts";
import { Empty, Loaded, PageHeader, Row, When } from "../ui/kit.tsx";
import { Thread } from "./thread.tsx";

/** Conversations, most recently active first; `#/threads/<id>` opens one. */
export function Threads({ route }: { route: Route }) {
  if (route.rest[0]) return <Thread id={route.rest[0]} />;
  return <ThreadList />;
}

function ThreadList() {
  const threads = useLoad(() => api<Page<Conversation>>("/conversations?limit=100"), "threads");
  return (
    <>
      <PageHeader title="Threads" subtitle="Every conversation, both directions." actions={<a class="btn btn-primary" href={link("send")}>New message</a>} />
      <Loaded state={threads}>
        {(page) =>
          page.items.length === 0 ? (
            <Empty title="No conversations yet" action={<a class="btn btn-secondary" href={link("send")}>Send a first message</a>}>
              A thread starts with the first message you send or receive.
            </Empty>
          ) : (
            <ul class="list" aria-label="Threads">
              {page.items.map((t) => (
                <Row
                  href={link("threads", t.id)}
                  avatar={peerName(t)}
                  title={peerName(t)}
                  meta={<When iso={t.lastMessageAt} />}
                  sub={`${t.subject ?? "Conversation"} · ${t.messageCount} ${t.messageCount === 1 ? "message" : "messages"}`}
                />
              ))}
            </ul>
          )
        }
      </Loaded>
    </>
  );
}
