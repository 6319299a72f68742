/** @jsxImportSource preact */
import { useState } from "preact/hooks";
import { api, type Page } from "../lib/api.ts";
import { fromList, toList } from "../lib/format.ts";
import { useLoad } from "../lib/live.ts";
import { Button, ConfirmButton, Field, Loaded, Notice, PageHeader, Section, useAction, When } from "../ui/kit.tsx";

interface Snapshot {
  headline: string;
  skills: string[];
  interests: string[];
  openTo: string[];
  availability?: { timezone: string; meetingHours?: string; responseSla?: string };
}
interface Scoped {
  scope: string;
  snapshot: Snapshot;
  updatedAt: string;
}

const SCOPE_TEXT: Record<string, string> = {
  public: "On your Agent Card, in Discovery and in connection requests to strangers.",
  connected: "What your connections see (falls back to public).",
};

/** Profile snapshots: what each audience learns about the owner (INK ProfileSnapshot). */
export function Profile() {
  const list = useLoad(() => api<Page<Scoped>>("/profile?limit=50"), "profile", { live: false });
  const [extra, setExtra] = useState<string[]>([]);
  const [newScope, setNewScope] = useState("");
  return (
    <>
      <PageHeader title="Profile" subtitle="What others learn about you, per audience. Your agent shares the right one for each." />
      <Loaded state={list}>
        {(page) => {
          const scopes = [...new Set(["public", "connected", ...page.items.map((s) => s.scope), ...extra])];
          return (
            <>
              {scopes.map((scope) => <SnapshotForm key={scope} scope={scope} current={page.items.find((s) => s.scope === scope)} onChange={list.reload} />)}
              <form class="row wrap add-scope" onSubmit={(e) => { e.preventDefault(); if (newScope.trim()) { setExtra([...extra, newScope.trim().toLowerCase()]); setNewScope(""); } }}>
                <Field label="New audience" inline>{(id) => <input id={id} pattern="[a-z][a-z0-9_\-]{0,31}" placeholder="e.g. investors" value={newScope} onInput={(e) => setNewScope(e.currentTarget.value)} />}</Field>
                <Button type="submit">Add</Button>
              </form>
            </>
          );
        }}
      </Loaded>
    </>
  );
}

function SnapshotForm({ scope, current, onChange }: { scope: string; current: Scoped | undefined; onChange: () => void }) {
  const s = current?.snapshot;
  const [v, setV] = useState({
    headline: s?.headline ?? "",
    skills: fromList(s?.skills),
    interests: fromList(s?.interests),
    openTo: fromList(s?.openTo),
    timezone: s?.availability?.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
    meetingHours: s?.availability?.meetingHours ?? "",
  });
  const action = useAction();
  const set = (k: keyof typeof v) => (e: { currentTarget: { value: string } }) => setV({ ...v, [k]: e.currentTarget.value });
  const save = () =>
    action.run("save", async () => {
      const availability = { timezone: v.timezone.trim(), ...(v.meetingHours.trim() ? { meetingHours: v.meetingHours.trim() } : {}) };
      await api(`/profile/${encodeURIComponent(scope)}`, { method: "PUT", body: { headline: v.headline.trim(), skills: toList(v.skills), interests: toList(v.interests), openTo: toList(v.openTo), ...(availability.timezone ? { availability } : {}) } });
      onChange();
    }, `${scope} profile saved`);
  const remove = () => action.run("delete", () => api(`/profile/${encodeURIComponent(scope)}`, { method: "DELETE" }).then(onChange), `${scope} profile deleted`);
  const title = scope.charAt(0).toUpperCase() + scope.slice(1);
  return (
    <Section title={title} actions={<span class="muted small">{current ? <>Saved <When iso={current.updatedAt} /></> : "Not written yet"}</span>}>
      <p class="muted">{SCOPE_TEXT[scope] ?? "Shared where your agent is told to use this audience."}</p>
      <form class="stack" onSubmit={(e) => { e.preventDefault(); void save(); }}>
        <Field label="Headline">{(id) => <input id={id} maxLength={500} required value={v.headline} onInput={set("headline")} placeholder="What you do, in a line" />}</Field>
        <div class="grid">
          <Field label="Skills" hint="Separated by commas.">{(id, h) => <input id={id} aria-describedby={h} value={v.skills} onInput={set("skills")} />}</Field>
          <Field label="Interests" hint="Separated by commas.">{(id, h) => <input id={id} aria-describedby={h} value={v.interests} onInput={set("interests")} />}</Field>
          <Field label="Open to" hint="For example: advising, coffee chats.">{(id, h) => <input id={id} aria-describedby={h} value={v.openTo} onInput={set("openTo")} />}</Field>
          <Field label="Time zone">{(id) => <input id={id} value={v.timezone} onInput={set("timezone")} />}</Field>
          <Field label="Meeting hours (optional)">{(id) => <input id={id} value={v.meetingHours} onInput={set("meetingHours")} placeholder="Weekdays 9–17" />}</Field>
        </div>
        {action.error && <Notice tone="bad">{action.error}</Notice>}
        <div class="row">
          <Button kind="primary" type="submit" busy={action.busy === "save"}>Save {scope}</Button>
          {current && scope !== "public" && <ConfirmButton confirm={`Delete the ${scope} profile`} onConfirm={() => void remove()}>Delete</ConfirmButton>}
        </div>
      </form>
    </Section>
  );
}
