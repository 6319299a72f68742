/** @jsxImportSource preact */
import type { ButtonHTMLAttributes, ComponentChildren } from "preact";
import { useEffect, useId, useState } from "preact/hooks";
import { ApiError } from "../lib/api.ts";
import { ago, exact, initials } from "../lib/format.ts";
import { refreshNow } from "../lib/live.ts";

/**
 * The console's component kit: every screen (and the ones still to come — extensions, the
 * network graph) is built from these, so they look and behave alike, keyboard and screen reader
 * included.
 */
type ButtonProps = Omit<ButtonHTMLAttributes<HTMLButtonElement>, "type"> & { kind?: "primary" | "secondary" | "danger" | "ghost"; busy?: boolean; small?: boolean; type?: "button" | "submit"; disabled?: boolean };

export function Button({ kind = "secondary", busy, small, type = "button", children, disabled, class: cls, ...rest }: ButtonProps) {
  return (
    <button {...rest} type={type} class={`btn btn-${kind}${small ? " btn-small" : ""}${cls ? ` ${cls}` : ""}`} disabled={disabled || busy} aria-busy={busy || undefined}>
      {children}
    </button>
  );
}

/** A destructive action asks once more, in place (no modal to trap focus in). */
export function ConfirmButton({ confirm, onConfirm, children, busy, small }: { confirm: string; onConfirm: () => void; children: ComponentChildren; busy?: boolean; small?: boolean }) {
  const [asking, setAsking] = useState(false);
  if (!asking) return <Button kind="secondary" small={small} busy={busy} onClick={() => setAsking(true)}>{children}</Button>;
  return (
    <span class="confirm" role="group" aria-label={confirm}>
      <Button kind="danger" small={small} busy={busy} onClick={() => { setAsking(false); onConfirm(); }} autoFocus>{confirm}</Button>
      <Button kind="ghost" small={small} onClick={() => setAsking(false)}>Cancel</Button>
    </span>
  );
}

export function Field({ label, hint, children, inline }: { label: string; hint?: ComponentChildren; children: (id: string, describedBy?: string) => ComponentChildren; inline?: boolean }) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <div class={inline ? "field field-inline" : "field"}>
      <label for={id}>{label}</label>
      {children(id, hintId)}
      {hint && <p class="hint" id={hintId}>{hint}</p>}
    </div>
  );
}

export function Badge({ tone = "neutral", children }: { tone?: "neutral" | "accent" | "good" | "warn" | "bad"; children: ComponentChildren }) {
  return <span class={`badge badge-${tone}`}>{children}</span>;
}

export function Avatar({ name }: { name: string | null | undefined }) {
  return <span class="avatar" aria-hidden="true">{initials(name)}</span>;
}

/**
 * One row of a list: who (an avatar when `avatar` is given), a title, a meta line on the right, a
 * second line and tags; a link when `href` is given. Lists wrap rows in `<ul class="list">`.
 */
export function Row({ href, avatar, title, meta, sub, tags, children, unread }: { href?: string; avatar?: string; title: ComponentChildren; meta?: ComponentChildren; sub?: ComponentChildren; tags?: ComponentChildren; children?: ComponentChildren; unread?: boolean }) {
  const body = (
    <>
      {avatar !== undefined && <Avatar name={avatar} />}
      <span class="item-main">
        <span class="item-top">
          <strong class="item-title">{title}</strong>
          {meta && <span class="item-meta">{meta}</span>}
        </span>
        {sub && <span class="item-sub">{sub}</span>}
        {tags && <span class="item-tags">{tags}</span>}
        {children}
      </span>
    </>
  );
  return <li class={unread ? "item unread" : "item"}>{href ? <a class="item-link" href={href}>{body}</a> : <div class="item-static">{body}</div>}</li>;
}

export function When({ iso }: { iso: string | null | undefined }) {
  return iso ? <time dateTime={iso} title={exact(iso)}>{ago(iso)}</time> : <span>—</span>;
}

export function PageHeader({ title, subtitle, actions }: { title: string; subtitle?: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <header class="page-header">
      <div>
        <h1 tabIndex={-1}>{title}</h1>
        {subtitle && <p class="subtitle">{subtitle}</p>}
      </div>
      {actions && <div class="page-actions">{actions}</div>}
    </header>
  );
}

export function Section({ title, actions, children, id }: { title: string; actions?: ComponentChildren; children: ComponentChildren; id?: string }) {
  const hid = useId();
  return (
    <section class="card" aria-labelledby={hid} id={id}>
      <div class="card-head">
        <h2 id={hid}>{title}</h2>
        {actions}
      </div>
      {children}
    </section>
  );
}

export function Empty({ title, children, action }: { title: string; children?: ComponentChildren; action?: ComponentChildren }) {
  return (
    <div class="empty">
      <p class="empty-title">{title}</p>
      {children && <p class="empty-text">{children}</p>}
      {action}
    </div>
  );
}

export function Notice({ tone = "info", children }: { tone?: "info" | "good" | "bad"; children: ComponentChildren }) {
  return <div class={`notice notice-${tone}`} role={tone === "bad" ? "alert" : "status"}>{children}</div>;
}

export function Loading({ label = "Loading" }: { label?: string }) {
  return <p class="loading" role="status">{label}…</p>;
}

/** The standard frame of a loaded value: a spinner first, the node's error if it fails, then `children`. */
export function Loaded<T>({ state, children }: { state: { data: T | undefined; error: ApiError | null }; children: (data: T) => ComponentChildren }) {
  if (state.error && state.data === undefined) return <Notice tone="bad">{state.error.message}</Notice>;
  if (state.data === undefined) return <Loading />;
  return <>{children(state.data)}</>;
}

/** Filter buttons above a list (one pressed at a time). */
export function Filters<T extends string>({ label, value, options, onChange }: { label: string; value: T; options: ReadonlyArray<readonly [T, string]>; onChange: (v: T) => void }) {
  return (
    <div class="filters" role="group" aria-label={label}>
      {options.map(([v, text]) => (
        <button type="button" class="filter" aria-pressed={v === value} onClick={() => onChange(v)}>{text}</button>
      ))}
    </div>
  );
}

/**
 * Runs an owner action: busy while it runs, the node's message if it fails, a short confirmation
 * in the shared live region when it succeeds.
 */
export function useAction() {
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const run = async <T,>(name: string, fn: () => Promise<T>, done?: string): Promise<T | undefined> => {
    setBusy(name);
    setError(null);
    try {
      const out = await fn();
      if (done) toast(done);
      refreshNow();
      return out;
    } catch (e) {
      setError(e instanceof ApiError ? e.message : e instanceof Error ? e.message : String(e));
      return undefined;
    } finally {
      setBusy(null);
    }
  };
  return { busy, error, run, clearError: () => setError(null) };
}

const toastListeners = new Set<(text: string) => void>();
export function toast(text: string): void {
  for (const l of toastListeners) l(text);
}

/**
 * The one polite live region: confirmations of what just happened. A confirmation belongs to its
 * screen: it ends when the owner moves to another (`screen` changes), so it never sits over the
 * next screen's content.
 */
export function Toasts({ screen }: { screen: string }) {
  const [text, setText] = useState("");
  useEffect(() => {
    let timer: number | undefined;
    const on = (t: string) => {
      setText(t);
      clearTimeout(timer);
      timer = window.setTimeout(() => setText(""), 4000);
    };
    toastListeners.add(on);
    return () => {
      toastListeners.delete(on);
      clearTimeout(timer);
    };
  }, []);
  useEffect(() => setText(""), [screen]);
  return <div class={text ? "toast toast-on" : "toast"} role="status" aria-live="polite">{text}</div>;
}

export interface Column<T> {
  label: string;
  /** The header is for screen readers only (an actions column). */
  hideLabel?: boolean;
  cell: (row: T) => ComponentChildren;
  class?: string;
}

/**
 * A table on a desktop; on a phone each row stacks into a block whose cells carry their column's
 * name (style.css, `.table` under 600 px), so nothing is cut off or needs a sideways scroll.
 */
export function Table<T>({ caption, columns, rows }: { caption?: string; columns: Array<Column<T>>; rows: T[] }) {
  return (
    <table class="table">
      {caption && <caption>{caption}</caption>}
      <thead><tr>{columns.map((c) => <th scope="col">{c.hideLabel ? <span class="sr-only">{c.label}</span> : c.label}</th>)}</tr></thead>
      <tbody>
        {rows.map((row) => (
          <tr>{columns.map((c) => <td class={c.class} data-label={c.hideLabel ? undefined : c.label}>{c.cell(row)}</td>)}</tr>
        ))}
      </tbody>
    </table>
  );
}
