/** @jsxImportSource preact */
import { useState } from "preact/hooks";
import { api, type Page } from "../lib/api.ts";
import { intentLabel, LAYER_LABELS } from "../lib/format.ts";
import { useLoad } from "../lib/live.ts";
import { link, type Route } from "../lib/router.ts";
import { Badge, Button, ConfirmButton, Empty, Loaded, Notice, PageHeader, Row, Section, useAction, When } from "../ui/kit.tsx";
import { RuleForm } from "./rule-form.tsx";

export interface Rule {
  id: string;
  name: string;
  enabled: boolean;
  priority: number;
  match: { intents?: string[]; senders?: string[]; layers?: string[]; payload?: Array<{ path: string; op: string; value?: unknown }> };
  action: { type: "auto_respond" | "decline" | "hold" | "label"; labels?: string[]; reason?: string; note?: string; template?: Record<string, unknown> };
  createdAt: string;
}

interface Run {
  id: string;
  message: { id: string | null; messageId: string };
  action: string;
  outcome: string;
  createdAt: string;
}

const OUTCOME_TEXT: Record<string, string> = { labeled: "Labelled", held: "Held for you", already_held: "Already held", sent: "Answered", drafted: "Reply drafted", rejected: "Declined", suggested: "Suggested", suppressed: "Suppressed by your autonomy setting", skipped: "Skipped", failed: "Failed" };

/** Automation rules in the order they run, each with what it did; `#/rules/<id>` shows a rule's runs. */
export function Rules({ route }: { route: Route }) {
  return route.rest[0] ? <RuleRuns id={route.rest[0]} /> : <RuleList />;
}

function RuleList() {
  const rules = useLoad(() => api<Page<Rule>>("/rules?limit=200"), "rules");
  const [creating, setCreating] = useState(false);
  return (
    <>
      <PageHeader
        title="Automation"
        subtitle={<>Rules your agent applies to incoming messages, lowest priority number first. What they may do is bounded by your <a href={link("policy")}>autonomy setting</a>.</>}
        actions={!creating && <Button kind="primary" onClick={() => setCreating(true)}>New rule</Button>}
      />
      {creating && <RuleForm onDone={() => { setCreating(false); rules.reload(); }} onCancel={() => setCreating(false)} />}
      <Loaded state={rules}>
        {(page) =>
          page.items.length === 0 ? (
            !creating && <Empty title="No rules yet" action={<Button onClick={() => setCreating(true)}>Create a rule</Button>}>Label, hold, decline or answer messages automatically — for example, label every question that mentions an invoice.</Empty>
          ) : (
            <ul class="cards" aria-label="Rules">{page.items.map((r) => <RuleCard rule={r} onChange={rules.reload} />)}</ul>
          )
        }
      </Loaded>
    </>
  );
}

export function describeMatch(m: Rule["match"]): string {
  const parts = [
    m.intents?.length ? m.intents.map(intentLabel).join(" or ") : "any message",
    m.layers?.length ? `from your ${m.layers.map((l) => LAYER_LABELS[l]?.toLowerCase() ?? l).join(" or ")} circle` : "",
    m.senders?.length ? `from ${m.senders.length} chosen ${m.senders.length === 1 ? "agent" : "agents"}` : "",
    ...(m.payload ?? []).map((c) => (c.op === "exists" ? `with a ${c.path}` : `whose ${c.path} ${c.op === "contains" ? "contains" : "is"} “${String(c.value)}”`)),
  ];
  return parts.filter(Boolean).join(", ");
}

export function describeAction(a: Rule["action"]): string {
  if (a.type === "label") return `label it ${a.labels?.join(", ")}`;
  if (a.type === "hold") return `hold it for you${a.reason ? ` (${a.reason})` : ""}`;
  if (a.type === "decline") return "decline it";
  return "answer automatically";
}

function RuleCard({ rule, onChange }: { rule: Rule; onChange: () => void }) {
  const action = useAction();
  const toggle = () => action.run("toggle", () => api(`/rules/${rule.id}`, { method: "PATCH", body: { enabled: !rule.enabled } }).then(onChange), rule.enabled ? "Rule paused" : "Rule enabled");
  const remove = () => action.run("delete", () => api(`/rules/${rule.id}`, { method: "DELETE" }).then(onChange), "Rule deleted");
  return (
    <li class="card">
      <div class="card-head">
        <h2>{rule.name}</h2>
        <span class="row">
          <Badge tone={rule.enabled ? "good" : "neutral"}>{rule.enabled ? "On" : "Paused"}</Badge>
          <Badge>Priority {rule.priority}</Badge>
        </span>
      </div>
      <p>When {describeMatch(rule.match)}: <strong>{describeAction(rule.action)}</strong>.</p>
      {action.error && <Notice tone="bad">{action.error}</Notice>}
      <div class="row wrap">
        <Button small busy={action.busy === "toggle"} onClick={() => void toggle()} aria-pressed={rule.enabled}>{rule.enabled ? "Pause" : "Enable"}</Button>
        <a class="btn btn-ghost btn-small" href={link("rules", rule.id)}>What it did</a>
        <ConfirmButton small confirm="Delete this rule" busy={action.busy === "delete"} onConfirm={() => void remove()}>Delete</ConfirmButton>
      </div>
    </li>
  );
}

function RuleRuns({ id }: { id: string }) {
  const rule = useLoad(() => api<Rule>(`/rules/${encodeURIComponent(id)}`), `rule:${id}`, { live: false });
  const runs = useLoad(() => api<Page<Run>>(`/rules/${encodeURIComponent(id)}/runs?limit=100`), `runs:${id}`);
  return (
    <>
      <PageHeader title={rule.data?.name ?? "Rule"} subtitle={rule.data && <>When {describeMatch(rule.data.match)}: {describeAction(rule.data.action)}.</>} actions={<a class="btn btn-ghost" href={link("rules")}>All rules</a>} />
      <Section title="What it did">
        <Loaded state={runs}>
          {(page) =>
            page.items.length === 0 ? <Empty title="Nothing yet">This rule has not matched a message since it was created.</Empty> : (
              <ul class="list" aria-label="Runs">
                {page.items.map((r) => (
                  <Row title={OUTCOME_TEXT[r.outcome] ?? r.outcome} meta={<When iso={r.createdAt} />} sub={<span class="mono">{r.message.id ?? r.message.messageId}</span>} />
                ))}
              </ul>
            )
          }
        </Loaded>
      </Section>
    </>
  );
}
