/** @jsxImportSource preact */
import { useState } from "preact/hooks";
import { api, publicJson, qs } from "../lib/api.ts";
import { fromList, toList } from "../lib/format.ts";
import { useLoad } from "../lib/live.ts";
import { link } from "../lib/router.ts";
import { Badge, Button, Empty, Field, Loaded, Notice, PageHeader, Row, Section, Table, useAction, When } from "../ui/kit.tsx";

interface Push {
  directory: string;
  action: "publish" | "unpublish" | null;
  state: "queued" | "delivered" | "failed" | "none";
  attempts: number;
  nextAttemptAt: string | null;
  lastError: string | null;
  deliveredAt: string | null;
  remoteStatus: string | null;
}
interface Publication {
  status: "listed" | "delisted" | "unpublished";
  published: boolean;
  publishedAt: string | null;
  tags: string[];
  location: string | null;
  roles: string[];
  directories: Push[];
}
interface Result {
  agentId: string;
  handle: string;
  displayName: string;
  headline?: string;
  bio?: string;
  skills: string[];
  cardUrl?: string;
}

const STATE_TONE = { delivered: "good", queued: "neutral", failed: "bad", none: "neutral" } as const;

export function Discovery() {
  return (
    <>
      <PageHeader title="Discovery" subtitle="Be findable by people you have not met yet, and find them." />
      <PublicationCard />
      <Search />
    </>
  );
}

function PublicationCard() {
  const pub = useLoad(() => api<Publication>("/discovery"), "publication");
  const action = useAction();
  const [form, setForm] = useState<{ tags: string; location: string; roles: string } | null>(null);
  const publish = () =>
    action.run("publish", async () => {
      await api("/discovery/publish", { body: { tags: toList(form!.tags), location: form!.location.trim() || null, roles: toList(form!.roles) } });
      setForm(null);
      pub.reload();
    }, "Published");
  const unpublish = () => action.run("unpublish", () => api("/discovery/unpublish", { method: "POST" }).then(pub.reload), "Unpublished");
  return (
    <Section title="Your listing">
      <Loaded state={pub}>
        {(p) => (
          <div class="stack">
            <p>
              {p.published ? <Badge tone="good">Listed</Badge> : <Badge>Not listed</Badge>}{" "}
              {p.published ? <>Anyone searching this node{p.directories.length ? " and your directories" : ""} can find you{p.publishedAt && <> since <When iso={p.publishedAt} /></>}.</> : "Only people who have your card can reach you."}
            </p>
            {p.published && p.tags.length > 0 && <p class="muted">Tags: {p.tags.join(", ")}{p.location && ` · ${p.location}`}</p>}
            {form ? (
              <form class="stack" onSubmit={(e) => { e.preventDefault(); void publish(); }}>
                <Field label="Tags" hint="What people might search for, separated by commas.">{(id, h) => <input id={id} aria-describedby={h} value={form.tags} onInput={(e) => setForm({ ...form, tags: e.currentTarget.value })} />}</Field>
                <Field label="Location (optional)">{(id) => <input id={id} value={form.location} onInput={(e) => setForm({ ...form, location: e.currentTarget.value })} />}</Field>
                <Field label="Roles (optional)" hint="Separated by commas.">{(id, h) => <input id={id} aria-describedby={h} value={form.roles} onInput={(e) => setForm({ ...form, roles: e.currentTarget.value })} />}</Field>
                <div class="row">
                  <Button kind="primary" type="submit" busy={action.busy === "publish"}>{p.published ? "Update listing" : "Publish"}</Button>
                  <Button kind="ghost" onClick={() => setForm(null)}>Cancel</Button>
                </div>
              </form>
            ) : (
              <div class="row">
                <Button kind={p.published ? "secondary" : "primary"} onClick={() => setForm({ tags: fromList(p.tags), location: p.location ?? "", roles: fromList(p.roles) })}>{p.published ? "Edit listing" : "Publish me"}</Button>
                {p.published && <Button busy={action.busy === "unpublish"} onClick={() => void unpublish()}>Unpublish</Button>}
              </div>
            )}
            {action.error && <Notice tone="bad">{action.error}</Notice>}
            {p.directories.length > 0 && (
              <Table
                caption="Directories"
                rows={p.directories}
                columns={[
                  { label: "Directory", class: "breakall", cell: (d) => d.directory },
                  { label: "State", cell: (d) => <Badge tone={STATE_TONE[d.state]}>{d.state === "delivered" ? (d.remoteStatus ?? "delivered") : d.state}</Badge> },
                  { label: "Details", class: "muted", cell: (d) => (d.state === "failed" || (d.state === "queued" && d.lastError) ? `${d.lastError} (attempt ${d.attempts})` : d.deliveredAt ? <When iso={d.deliveredAt} /> : "—") },
                ]}
              />
            )}
          </div>
        )}
      </Loaded>
    </Section>
  );
}

/** Searches this node's registry (GET /discover, the same node): its own listing and agents listed here. */
function Search() {
  const [q, setQ] = useState("");
  const [results, setResults] = useState<Result[] | null>(null);
  const action = useAction();
  const search = () => action.run("search", async () => setResults((await publicJson<{ results: Result[] }>(`/discover${qs({ q: q.trim(), limit: 20 })}`)).results));
  const connect = (r: Result) => action.run(`c:${r.agentId}`, () => api("/connections", { body: { cardUrl: r.cardUrl, method: "discovery" } }), `Connection request sent to ${r.displayName || r.handle}`);
  return (
    <Section title="Find people">
      <form class="row wrap" role="search" onSubmit={(e) => { e.preventDefault(); void search(); }}>
        <Field label="Search by name, handle, skill or interest" inline>{(id) => <input id={id} type="search" minLength={2} required value={q} onInput={(e) => setQ(e.currentTarget.value)} />}</Field>
        <Button kind="primary" type="submit" busy={action.busy === "search"}>Search</Button>
      </form>
      {action.error && <Notice tone="bad">{action.error}</Notice>}
      {results && (results.length === 0 ? <Empty title="No one found">Try a shorter word: every word must start a word in a listing.</Empty> : (
        <ul class="list" aria-label="Search results">
          {results.map((r) => (
            <Row avatar={r.displayName || r.handle} title={r.displayName || r.handle} meta={`@${r.handle}`} sub={r.headline || r.bio} tags={r.skills.length > 0 && r.skills.slice(0, 6).map((s) => <Badge>{s}</Badge>)}>
              {r.cardUrl && (
                <span class="row wrap">
                  <Button small busy={action.busy === `c:${r.agentId}`} onClick={() => void connect(r)}>Connect</Button>
                  <a class="btn btn-ghost btn-small" href={`${link("send")}?${new URLSearchParams({ cardUrl: r.cardUrl, name: r.displayName || r.handle })}`}>Send a message</a>
                </span>
              )}
            </Row>
          ))}
        </ul>
      ))}
    </Section>
  );
}
