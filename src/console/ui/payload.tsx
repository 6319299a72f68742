/** @jsxImportSource preact */
import { exact } from "../lib/format.ts";
import type { FieldSpec, FormValues } from "../lib/intents.ts";
import { Button, Field } from "./kit.tsx";

/** The fields of one intent's payload, as a controlled form section. */
export function PayloadFields({ fields, values, onChange }: { fields: FieldSpec[]; values: FormValues; onChange: (v: FormValues) => void }) {
  const set = (name: string, value: string | string[]) => onChange({ ...values, [name]: value });
  return (
    <>
      {fields.filter((f) => !f.fixed).map((f) => {
        const value = values[f.name];
        const label = f.required ? f.label : `${f.label} (optional)`;
        if (f.kind === "times") {
          const times = Array.isArray(value) && value.length ? value : [""];
          return (
            <fieldset class="field">
              <legend>{label}</legend>
              {f.hint && <p class="hint">{f.hint}</p>}
              {times.map((t, i) => (
                <div class="row">
                  <input type="datetime-local" aria-label={`${f.label} ${i + 1}`} value={t} required={f.required && i === 0} onInput={(e) => set(f.name, times.map((x, j) => (j === i ? e.currentTarget.value : x)))} />
                  {times.length > 1 && <Button kind="ghost" small onClick={() => set(f.name, times.filter((_, j) => j !== i))} aria-label={`Remove time ${i + 1}`}>Remove</Button>}
                </div>
              ))}
              {times.length < 10 && <Button kind="ghost" small onClick={() => set(f.name, [...times, ""])}>Add a time</Button>}
            </fieldset>
          );
        }
        return (
          <Field label={label} hint={f.hint}>
            {(id, hint) =>
              f.kind === "textarea" ? (
                <textarea id={id} rows={3} required={f.required} aria-describedby={hint} value={String(value ?? "")} onInput={(e) => set(f.name, e.currentTarget.value)} />
              ) : f.kind === "choice" ? (
                <select id={id} required={f.required} aria-describedby={hint} value={String(value ?? "")} onChange={(e) => set(f.name, e.currentTarget.value)}>
                  {f.options!.map(([v, text]) => <option value={v}>{text}</option>)}
                </select>
              ) : (
                <input
                  id={id}
                  type={(f.kind === "datetime" ? "datetime-local" : f.kind === "url" ? "url" : f.kind === "number" ? "number" : "text") as "text"}
                  required={f.required}
                  aria-describedby={hint}
                  value={String(value ?? "")}
                  onInput={(e) => set(f.name, e.currentTarget.value)}
                />
              )
            }
          </Field>
        );
      })}
    </>
  );
}

const TIME_MEMBERS = new Set(["deadline", "confirmedTime", "expiresAt"]);

/** A payload, readable: labelled members, times in local time, nested snapshots flattened. */
export function PayloadView({ payload }: { payload: Record<string, unknown> }) {
  const entries = Object.entries(payload).filter(([, v]) => v !== null && v !== undefined && v !== "" && !(Array.isArray(v) && v.length === 0));
  if (entries.length === 0) return null;
  return (
    <dl class="payload">
      {entries.map(([k, v]) => (
        <div>
          <dt>{humanize(k)}</dt>
          <dd>{render(k, v)}</dd>
        </div>
      ))}
    </dl>
  );
}

function render(key: string, v: unknown): string {
  const times = /times$/i.test(key);
  if (Array.isArray(v)) return v.map((x) => (times && typeof x === "string" ? exact(x) : typeof x === "object" ? JSON.stringify(x) : String(x))).join(times ? " · " : ", ");
  if (typeof v === "string") return TIME_MEMBERS.has(key) ? exact(v) : v;
  if (typeof v === "object") {
    const o = v as Record<string, unknown>;
    if (typeof o.headline === "string") return [o.headline, ...(Array.isArray(o.skills) ? [o.skills.join(", ")] : [])].filter(Boolean).join(" — ");
    return Object.entries(o).map(([k, x]) => `${humanize(k)}: ${typeof x === "object" ? JSON.stringify(x) : String(x)}`).join(" · ");
  }
  return String(v);
}

function humanize(key: string): string {
  const s = key.replace(/([A-Z])/g, " $1").replace(/_/g, " ").toLowerCase();
  return s.charAt(0).toUpperCase() + s.slice(1);
}
