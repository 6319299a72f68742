/** @jsxImportSource preact */
import { useState } from "preact/hooks";
import { api } from "../lib/api.ts";
import { INTENT_LABELS, intentLabel, LAYER_LABELS, LAYERS, toList } from "../lib/format.ts";
import { emptyValues, INTENT_FORMS, payloadOf, type FormValues } from "../lib/intents.ts";
import { Button, Field, Notice, Section, useAction } from "../ui/kit.tsx";
import { PayloadFields } from "../ui/payload.tsx";
import { RESPONSE_OF } from "./thread.tsx";

type ActionType = "label" | "hold" | "decline" | "auto_respond";
const ACTIONS: ReadonlyArray<readonly [ActionType, string, string]> = [
  ["label", "Label it", "Tag the message; later rules still run."],
  ["hold", "Hold it for me", "It waits in Approvals."],
  ["decline", "Decline it", "Sends the declining answer where the intent has one."],
  ["auto_respond", "Answer automatically", "With the reply below (drafted for your approval below full autonomy)."],
];
const REQUESTS = Object.keys(INTENT_LABELS).filter((i) => !i.endsWith("_response") && i !== "retract");
const PAYLOAD_MEMBERS = ["question", "topic", "message", "context", "reason", "title", "description", "note"];

/** A rule in plain words: when (intent, circle, text) → then (one action). */
export function RuleForm({ onDone, onCancel }: { onDone: () => void; onCancel: () => void }) {
  const [name, setName] = useState("");
  const [intent, setIntent] = useState("");
  const [layers, setLayers] = useState<string[]>([]);
  const [member, setMember] = useState("question");
  const [contains, setContains] = useState("");
  const [type, setType] = useState<ActionType>("label");
  const [labels, setLabels] = useState("");
  const [text, setText] = useState("");
  const [priority, setPriority] = useState("100");
  const reply = RESPONSE_OF[intent];
  const [template, setTemplate] = useState<FormValues>({});
  const action = useAction();
  const chooseIntent = (next: string) => {
    setIntent(next);
    const r = RESPONSE_OF[next];
    setTemplate(r ? emptyValues(INTENT_FORMS[r] ?? []) : {});
    if (!r && type === "auto_respond") setType("label");
  };
  const create = () =>
    action.run("create", async () => {
      const match = {
        ...(intent ? { intents: [intent] } : {}),
        ...(layers.length ? { layers } : {}),
        ...(contains.trim() ? { payload: [{ path: member, op: "contains", value: contains.trim() }] } : {}),
      };
      const act =
        type === "label" ? { type, labels: toList(labels.toLowerCase()) }
        : type === "hold" ? { type, ...(text.trim() ? { reason: text.trim() } : {}) }
        : type === "decline" ? { type, ...(text.trim() ? { note: text.trim() } : {}) }
        : { type, template: payloadOf(INTENT_FORMS[reply!] ?? [], template) };
      await api("/rules", { body: { name: name.trim(), priority: Number(priority), match, action: act } });
      onDone();
    }, "Rule created");
  return (
    <Section title="New rule">
      <form class="stack" onSubmit={(e) => { e.preventDefault(); void create(); }}>
        <Field label="Name">{(id) => <input id={id} required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} placeholder="Label invoice questions" />}</Field>
        <fieldset class="field">
          <legend>When a message comes in</legend>
          <Field label="Kind of message">
            {(id) => (
              <select id={id} value={intent} onChange={(e) => chooseIntent(e.currentTarget.value)}>
                <option value="">Any kind</option>
                {REQUESTS.map((i) => <option value={i}>{intentLabel(i)}</option>)}
              </select>
            )}
          </Field>
          <fieldset class="field">
            <legend>From someone in (optional)</legend>
            <div class="checks">
              {LAYERS.map((l) => (
                <label class="check">
                  <input type="checkbox" checked={layers.includes(l)} onChange={(e) => setLayers(e.currentTarget.checked ? [...layers, l] : layers.filter((x) => x !== l))} />
                  {LAYER_LABELS[l]}
                </label>
              ))}
            </div>
          </fieldset>
          <div class="row wrap">
            <Field label="Whose">
              {(id) => <select id={id} value={member} onChange={(e) => setMember(e.currentTarget.value)}>{PAYLOAD_MEMBERS.map((m) => <option value={m}>{m}</option>)}</select>}
            </Field>
            <Field label="Contains (optional)">{(id) => <input id={id} maxLength={500} value={contains} onInput={(e) => setContains(e.currentTarget.value)} />}</Field>
          </div>
        </fieldset>
        <fieldset class="field">
          <legend>Then</legend>
          {ACTIONS.filter(([t]) => t !== "auto_respond" || reply).map(([t, label, hint]) => (
            <label class="radio">
              <input type="radio" name="rule-action" value={t} checked={type === t} onChange={() => setType(t)} />
              <span><strong>{label}</strong> <span class="muted">{hint}</span></span>
            </label>
          ))}
        </fieldset>
        {type === "label" && <Field label="Labels" hint="Lower-case, separated by commas.">{(id, hint) => <input id={id} required aria-describedby={hint} value={labels} onInput={(e) => setLabels(e.currentTarget.value)} />}</Field>}
        {(type === "hold" || type === "decline") && <Field label={type === "hold" ? "Reason (optional)" : "Note to the sender (optional)"}>{(id) => <input id={id} value={text} onInput={(e) => setText(e.currentTarget.value)} />}</Field>}
        {type === "auto_respond" && reply && (
          <fieldset class="field">
            <legend>The reply ({intentLabel(reply).toLowerCase()})</legend>
            <p class="hint">Text may use {"{{sender.displayName}}"}, {"{{owner.displayName}}"} and {"{{payload.question}}"}.</p>
            <PayloadFields fields={INTENT_FORMS[reply] ?? []} values={template} onChange={setTemplate} />
          </fieldset>
        )}
        <Field label="Priority" hint="0–1000; lower runs first.">{(id, hint) => <input id={id} type="number" min={0} max={1000} required aria-describedby={hint} value={priority} onInput={(e) => setPriority(e.currentTarget.value)} />}</Field>
        {action.error && <Notice tone="bad">{action.error}</Notice>}
        <div class="row">
          <Button kind="primary" type="submit" busy={action.busy === "create"}>Create rule</Button>
          <Button kind="ghost" onClick={onCancel}>Cancel</Button>
        </div>
      </form>
    </Section>
  );
}
