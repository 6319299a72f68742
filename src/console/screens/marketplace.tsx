/** @jsxImportSource preact */
import { useState } from "preact/hooks";
import { api, publicJson, qs } from "../lib/api.ts";
import { type MarketSummary, type Submission } from "../lib/extensions.ts";
import { useLoad } from "../lib/live.ts";
import { link } from "../lib/router.ts";
import { Badge, Button, Empty, Field, Loaded, Notice, PageHeader, Row, Section, useAction, When } from "../ui/kit.tsx";

/** Browse and search the marketplace, and (as this node's marketplace operator) review what was submitted. */
export function Marketplace() {
  return (
    <>
      <PageHeader title="Marketplace" subtitle="Extensions you can install; each asks before it gets anything." />
      <Browse />
      <ReviewQueue />
    </>
  );
}

function Browse() {
  const [text, setText] = useState("");
  const [q, setQ] = useState("");
  // Public and rate-limited per IP: searched when asked, not on every tick.
  const results = useLoad(() => (q.length >= 2 ? publicJson<{ results: MarketSummary[] }>(`/marketplace/extensions${qs({ q, limit: 50 })}`) : Promise.resolve({ results: [] })), `market:${q}`, { live: false });
  return (
    <Section title="Find an extension">
      <form class="row wrap" role="search" onSubmit={(e) => { e.preventDefault(); setQ(text.trim()); }}>
        <Field label="Search the marketplace" inline>
          {(id) => <input id={id} type="search" minLength={2} maxLength={200} placeholder="e.g. keep in touch" value={text} onInput={(e) => setText(e.currentTarget.value)} />}
        </Field>
        <Button kind="primary" type="submit">Search</Button>
      </form>
      {q.length < 2 ? <p class="hint">Search by name, publisher or category (two letters or more).</p> : (
        <Loaded state={results}>
          {({ results }) =>
            results.length === 0 ? <Empty title="Nothing found">No listed extension matches “{q}”.</Empty> : (
              <ul class="list" aria-label="Search results">
                {results.map((r) => (
                  <Row
                    href={link("extensions", "install", r.extensionId)}
                    title={r.name}
                    meta={r.reviewStats.average === null ? "not rated yet" : `★ ${r.reviewStats.average} (${r.reviewStats.count})`}
                    sub={r.summary}
                    tags={<>{r.publisher.verified ? <Badge tone="good">{r.publisher.domain} verified</Badge> : <Badge>{r.publisher.domain}</Badge>}{r.categories.map((c) => <Badge>{c}</Badge>)}</>}
                  />
                ))}
              </ul>
            )
          }
        </Loaded>
      )}
    </Section>
  );
}

const OPEN = new Set(["submitted", "in_review"]);

/** Submitted versions wait for the owner of this node's marketplace: approve publishes, reject says why. */
function ReviewQueue() {
  const queue = useLoad(() => api<{ submissions: Submission[] }>("/marketplace/submissions"), "submissions");
  return (
    <Section title="Review queue">
      <Loaded state={queue}>
        {({ submissions }) => {
          const open = submissions.filter((s) => OPEN.has(s.reviewState));
          return open.length === 0 ? <Empty title="Nothing to review">Extensions submitted to this node's marketplace wait here until you approve or reject them.</Empty> : (
            <ul class="list" aria-label="Waiting for review">
              {open.map((s) => <Review s={s} />)}
            </ul>
          );
        }}
      </Loaded>
    </Section>
  );
}

function Review({ s }: { s: Submission }) {
  const action = useAction();
  const [reason, setReason] = useState("");
  const path = `/marketplace/extensions/${encodeURIComponent(s.extensionId)}/versions/${encodeURIComponent(s.version)}/review`;
  const permissions = Array.isArray(s.manifest.permissions) ? (s.manifest.permissions as Array<{ name?: string }>).map((p) => p.name).join(", ") : "";
  return (
    <Row title={`${String(s.manifest.name ?? s.extensionId)} ${s.version}`} meta={<>submitted <When iso={s.submittedAt} /></>} sub={`${s.extensionId} · asks ${permissions || "nothing"}`}>
      <p class="muted small"><code class="mono breakall">{s.manifestHash}</code></p>
      <form class="stack" onSubmit={(e) => { e.preventDefault(); void action.run("reject", () => api(path, { body: { decision: "reject", reasons: [{ code: "owner_review", message: reason.trim() }] } }), "Rejected"); }}>
        <Field label={`Reason to reject ${s.extensionId} ${s.version}`}>
          {(id) => <input id={id} required maxLength={500} value={reason} onInput={(e) => setReason(e.currentTarget.value)} />}
        </Field>
        <div class="row wrap">
          <Button kind="primary" busy={action.busy === "approve"} onClick={() => void action.run("approve", () => api(path, { body: { decision: "approve" } }), `${s.extensionId} ${s.version} approved`)}>Approve</Button>
          <Button kind="danger" type="submit" busy={action.busy === "reject"}>Reject</Button>
        </div>
      </form>
      {action.error && <Notice tone="bad">{action.error}</Notice>}
    </Row>
  );
}

/** Rate an installed extension once (the marketplace refuses a second vote, 409). */
export function RateExtension({ extensionId }: { extensionId: string }) {
  const action = useAction();
  const [rating, setRating] = useState(5);
  const [comment, setComment] = useState("");
  const [done, setDone] = useState(false);
  return (
    <Section title="Rate it">
      {done ? <Notice tone="good">Thank you: your rating is in the marketplace.</Notice> : (
        <form class="stack" onSubmit={(e) => { e.preventDefault(); void action.run("rate", async () => { await api(`/marketplace/extensions/${encodeURIComponent(extensionId)}/reviews`, { body: { rating, ...(comment.trim() ? { comment: comment.trim() } : {}) } }); setDone(true); }, "Rating sent"); }}>
          <Field label="Rating">
            {(id) => <select id={id} value={rating} onChange={(e) => setRating(Number(e.currentTarget.value))}>{[5, 4, 3, 2, 1].map((n) => <option value={n}>{"★".repeat(n)} {n}</option>)}</select>}
          </Field>
          <Field label="Comment (optional)">
            {(id) => <textarea id={id} rows={2} maxLength={1000} value={comment} onInput={(e) => setComment(e.currentTarget.value)} />}
          </Field>
          {action.error && <Notice tone="bad">{action.error}</Notice>}
          <div class="row"><Button type="submit" busy={action.busy === "rate"}>Send rating</Button></div>
        </form>
      )}
    </Section>
  );
}
