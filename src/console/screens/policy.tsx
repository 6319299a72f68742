/** @jsxImportSource preact */
import { useEffect, useState } from "preact/hooks";
import { api } from "../lib/api.ts";
import { useLoad } from "../lib/live.ts";
import { Button, Field, Loaded, Notice, PageHeader, Section, useAction } from "../ui/kit.tsx";

interface Policy {
  maxAutonomyLevel: "none" | "draft_only" | "auto_respond" | "full";
  trustedDids: string[];
  maxInboundRate: number;
  acceptForeignAgents: boolean;
  allowedMethods: string[];
  allowedHosts: string[];
  allowedDids: string[];
  blockedDids: string[];
  updatedAt: string | null;
}

const LEVELS: ReadonlyArray<readonly [Policy["maxAutonomyLevel"], string, string]> = [
  ["none", "Never act", "Your agent only labels and holds. Everything waits for you."],
  ["draft_only", "Draft, you send", "Rules draft replies; you approve each one. (Default)"],
  ["auto_respond", "Answer trusted agents", "Like drafting, but agents you trust below are answered directly."],
  ["full", "Act on its own", "Rules answer and decline without asking you."],
];
const LISTS = [
  ["trustedDids", "Trusted agents", "Handled as if autonomy were full (except under Never act). One agent id per line."],
  ["blockedDids", "Blocked agents", "Refused, whatever else applies. One agent id per line."],
  ["allowedDids", "Strangers allowed to ask to connect", "Empty: anyone may ask (when strangers are allowed). One agent id per line."],
  ["allowedHosts", "Hosts strangers may come from", "Empty: any host. One host per line."],
  ["allowedMethods", "Kinds of agent id allowed", "For example key: or did:web. Empty: any."],
] as const;
type ListKey = (typeof LISTS)[number][0];

/** The autonomy policy: how far the agent may act alone, and who may reach it (full replace on save). */
export function Policy() {
  const loaded = useLoad(() => api<Policy>("/policy"), "policy", { live: false });
  return (
    <>
      <PageHeader title="Autonomy" subtitle="How far your agent may act without you, and who may reach it." />
      <Loaded state={loaded}>{(p) => <PolicyForm initial={p} onSaved={loaded.reload} />}</Loaded>
    </>
  );
}

function PolicyForm({ initial, onSaved }: { initial: Policy; onSaved: () => void }) {
  const [p, setP] = useState(initial);
  const [lists, setLists] = useState(() => Object.fromEntries(LISTS.map(([k]) => [k, initial[k].join("\n")])) as Record<ListKey, string>);
  useEffect(() => setP(initial), [initial]);
  const action = useAction();
  const save = () =>
    action.run("save", async () => {
      const body = { ...p, ...Object.fromEntries(LISTS.map(([k]) => [k, lists[k].split(/\s*\n\s*/).map((s) => s.trim()).filter(Boolean)])) } as Record<string, unknown>;
      delete body.updatedAt;
      await api("/policy", { method: "PUT", body });
      onSaved();
    }, "Autonomy settings saved");
  return (
    <form class="stack" onSubmit={(e) => { e.preventDefault(); void save(); }}>
      <Section title="How much may your agent do alone?">
        <fieldset class="field levels">
          <legend class="sr-only">Autonomy level</legend>
          {LEVELS.map(([level, label, hint]) => (
            <label class={p.maxAutonomyLevel === level ? "level level-on" : "level"}>
              <input type="radio" name="level" value={level} checked={p.maxAutonomyLevel === level} onChange={() => setP({ ...p, maxAutonomyLevel: level })} />
              <span><strong>{label}</strong><span class="muted block">{hint}</span></span>
            </label>
          ))}
        </fieldset>
      </Section>
      <Section title="Who may reach your agent">
        <label class="check">
          <input type="checkbox" checked={p.acceptForeignAgents} onChange={(e) => setP({ ...p, acceptForeignAgents: e.currentTarget.checked })} />
          Strangers may ask to connect (their requests wait in Approvals)
        </label>
        <Field label="Messages per hour from one agent" hint="1–10000; more than this is refused.">
          {(id, hint) => <input id={id} type="number" min={1} max={10000} required aria-describedby={hint} value={p.maxInboundRate} onInput={(e) => setP({ ...p, maxInboundRate: Number(e.currentTarget.value) })} />}
        </Field>
        {LISTS.map(([key, label, hint]) => (
          <Field label={label} hint={hint}>
            {(id, h) => <textarea id={id} rows={2} class="mono" aria-describedby={h} value={lists[key]} onInput={(e) => setLists({ ...lists, [key]: e.currentTarget.value })} />}
          </Field>
        ))}
      </Section>
      {action.error && <Notice tone="bad">{action.error}</Notice>}
      <div class="row sticky-actions"><Button kind="primary" type="submit" busy={action.busy === "save"}>Save</Button></div>
    </form>
  );
}
