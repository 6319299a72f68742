/** @jsxImportSource preact */
import { useState } from "preact/hooks";
import { api, type Page } from "../lib/api.ts";
import { HEALTH_LABELS, LAYER_LABELS, LAYERS } from "../lib/format.ts";
import { useLoad } from "../lib/live.ts";
import { HEALTH_TONE, personName, STATUS_LABEL, type Connection } from "../lib/people.ts";
import { link } from "../lib/router.ts";
import { Badge, Button, ConfirmButton, Field, Loaded, Notice, PageHeader, Section, useAction, When } from "../ui/kit.tsx";
import { PayloadView } from "../ui/payload.tsx";

interface Note {
  id: string;
  text: string;
  createdAt: string;
}

export function ConnectionDetail({ id }: { id: string }) {
  const conn = useLoad(() => api<Connection>(`/connections/${encodeURIComponent(id)}`), `conn:${id}`);
  const action = useAction();
  const patch = (body: Record<string, unknown>, done: string) => action.run(JSON.stringify(body), () => api(`/connections/${encodeURIComponent(id)}`, { method: "PATCH", body }).then(conn.reload), done);
  return (
    <Loaded state={conn}>
      {(c) => (
        <>
          <PageHeader
            title={personName(c)}
            subtitle={<>{c.handle && `@${c.handle} · `}{STATUS_LABEL[c.status] ?? c.status}{c.connectedAt && <> since <When iso={c.connectedAt} /></>}</>}
            actions={<a class="btn btn-ghost" href={link("connections")}>All connections</a>}
          />
          {action.error && <Notice tone="bad">{action.error}</Notice>}
          <div class="grid">
            <Section title="Relationship">
              <dl class="facts">
                <div><dt>Circle</dt><dd><Badge tone="accent">{LAYER_LABELS[c.layer]}</Badge> {c.layerOverride ? "(set by you)" : "(from your messages)"}</dd></div>
                <div><dt>Health</dt><dd>{c.health ? <Badge tone={HEALTH_TONE[c.health] ?? "neutral"}>{HEALTH_LABELS[c.health]}</Badge> : "Not measured yet"}{c.healthScore !== null && <span class="muted"> · score {Math.round(c.healthScore * 100)}/100</span>}</dd></div>
                <div><dt>Last message</dt><dd><When iso={c.lastMessageAt} /></dd></div>
              </dl>
              <Field label="Put in circle" hint={`Computed from your messages: ${LAYER_LABELS[c.computedLayer]}. Health is measured against the circle's expected rhythm.`}>
                {(fid, hint) => (
                  <select id={fid} aria-describedby={hint} value={c.layerOverride ?? ""} onChange={(e) => void patch({ layer: e.currentTarget.value || null }, "Circle updated")}>
                    <option value="">Automatic ({LAYER_LABELS[c.computedLayer]})</option>
                    {LAYERS.map((l) => <option value={l}>{LAYER_LABELS[l]}</option>)}
                  </select>
                )}
              </Field>
            </Section>
            <Section title="Actions">
              <div class="row wrap">
                {c.status === "pending" && (
                  <>
                    <Button kind="primary" busy={action.busy !== null} onClick={() => void patch({ status: "connected" }, "Connection accepted")}>Accept</Button>
                    <Button busy={action.busy !== null} onClick={() => void patch({ status: "declined" }, "Request declined")}>Decline</Button>
                  </>
                )}
                {c.agentId && c.status !== "blocked" && <a class="btn btn-secondary" href={`${link("send")}?to=${encodeURIComponent(c.agentId)}`}>Send a message</a>}
                {c.status === "connected" && <ConfirmButton confirm="Disconnect" onConfirm={() => void patch({ status: "disconnected" }, "Disconnected")}>Disconnect</ConfirmButton>}
                {c.status !== "blocked" && c.agentId && <ConfirmButton confirm="Block this agent" onConfirm={() => void patch({ status: "blocked" }, "Blocked")}>Block</ConfirmButton>}
              </div>
              {c.agentId && <p class="muted small mono breakall">{c.agentId}</p>}
            </Section>
          </div>
          {c.profileSnapshot && (
            <Section title="Their profile">
              <PayloadView payload={c.profileSnapshot} />
            </Section>
          )}
          <Notes id={c.id} />
        </>
      )}
    </Loaded>
  );
}

/** Private notes on a relationship (never sent to anyone). */
function Notes({ id }: { id: string }) {
  const notes = useLoad(() => api<Page<Note>>(`/connections/${encodeURIComponent(id)}/notes?limit=100`), `notes:${id}`, { live: false });
  const [text, setText] = useState("");
  const action = useAction();
  const add = () => action.run("note", async () => {
    await api(`/connections/${encodeURIComponent(id)}/notes`, { body: { text: text.trim() } });
    setText("");
    notes.reload();
  }, "Note saved");
  return (
    <Section title="Notes">
      <form class="stack" onSubmit={(e) => { e.preventDefault(); void add(); }}>
        <Field label="Add a note" hint="Only you see notes.">{(fid, hint) => <textarea id={fid} rows={2} required value={text} aria-describedby={hint} onInput={(e) => setText(e.currentTarget.value)} />}</Field>
        {action.error && <Notice tone="bad">{action.error}</Notice>}
        <div class="row"><Button type="submit" busy={action.busy === "note"}>Save note</Button></div>
      </form>
      <Loaded state={notes}>
        {(page) =>
          page.items.length === 0 ? <p class="muted">No notes yet.</p> : (
            <ul class="notes">
              {page.items.map((n) => <li><p class="prewrap">{n.text}</p><p class="muted small"><When iso={n.createdAt} /></p></li>)}
            </ul>
          )
        }
      </Loaded>
    </Section>
  );
}
