/** @jsxImportSource preact */
import { useState } from "preact/hooks";
import { LAYER_LABELS } from "../lib/format.ts";
import { type AskedPermission, type Grant, type Tier, TIER_LABELS, TIERS } from "../lib/extensions.ts";
import { Badge, Button, Notice } from "../ui/kit.tsx";

/**
 * What the owner grants an extension, within what its manifest asks (the node refuses more, 422):
 * each permission in plain words with the extension's reason (a required one cannot be left out),
 * the circles it may see, and the highest autonomy tier of what it sends. The consent screen and
 * the installed extension's "change grant" both use it.
 */
export function GrantForm({ asked, layers, layersReason, maxTier, initial, submit, busy, error, onSubmit }: {
  asked: AskedPermission[];
  layers: string[];
  layersReason?: string;
  maxTier: Tier;
  initial: Grant;
  submit: string;
  busy: boolean;
  error: string | null;
  onSubmit: (grant: Grant) => void;
}) {
  const [grant, setGrant] = useState<Grant>(initial);
  const toggle = (list: string[], item: string, on: boolean) => (on ? [...new Set([...list, item])] : list.filter((x) => x !== item));
  const tiers = TIERS.slice(0, TIERS.indexOf(maxTier) + 1);
  return (
    <form class="stack" onSubmit={(e) => { e.preventDefault(); onSubmit(grant); }}>
      <fieldset class="field">
        <legend>Permissions</legend>
        <ul class="asks">
          {asked.map((p) => (
            <li>
              <label class="check">
                <input type="checkbox" checked={p.required || grant.permissions.includes(p.name)} disabled={p.required} onChange={(e) => setGrant({ ...grant, permissions: toggle(grant.permissions, p.name, e.currentTarget.checked) })} />
                <span>
                  <strong>{p.title}</strong> {p.required ? <Badge tone="warn">required</Badge> : <Badge>optional</Badge>}
                  <span class="muted block">“{p.reason}”</span>
                  <code class="muted small">{p.name}</code>
                </span>
              </label>
            </li>
          ))}
        </ul>
      </fieldset>
      <fieldset class="field">
        <legend>Circles it may see</legend>
        {layersReason && <p class="hint">“{layersReason}”</p>}
        {layers.length === 0 ? <p class="muted">None asked.</p> : (
          <div class="checks">
            {layers.map((l) => (
              <label class="check">
                <input type="checkbox" checked={grant.layers.includes(l)} onChange={(e) => setGrant({ ...grant, layers: toggle(grant.layers, l, e.currentTarget.checked) })} />
                {LAYER_LABELS[l] ?? l}
              </label>
            ))}
          </div>
        )}
      </fieldset>
      <fieldset class="field">
        <legend>Autonomy tier of what it sends</legend>
        {tiers.map((t) => (
          <label class="radio">
            <input type="radio" name="tier" checked={grant.maxAutonomyTier === t} onChange={() => setGrant({ ...grant, maxAutonomyTier: t })} />
            {TIER_LABELS[t]}
          </label>
        ))}
      </fieldset>
      {error && <Notice tone="bad">{error}</Notice>}
      <div class="row sticky-actions"><Button kind="primary" type="submit" busy={busy}>{submit}</Button></div>
    </form>
  );
}

/** The grant a consent screen starts from: everything asked (required included), at the manifest's tier. */
export function fullGrant(asked: AskedPermission[], layers: string[], tier: Tier): Grant {
  return { permissions: asked.map((p) => p.name), layers: [...layers], maxAutonomyTier: tier };
}

/** Required permissions always go with the grant (the checkbox is disabled, not absent). */
export function withRequired(grant: Grant, asked: AskedPermission[]): Grant {
  return { ...grant, permissions: [...new Set([...asked.filter((p) => p.required).map((p) => p.name), ...grant.permissions])] };
}

/** A fresh delegation token: the owner hands it to the extension (docs/extensions.md). */
export function TokenNotice({ token }: { token: string }) {
  return (
    <div class="stack">
      <Notice tone="good">A new delegation token was issued. Give it to the extension if it cannot renew on its own.</Notice>
      <label class="field">Delegation token<textarea readOnly rows={3} class="mono" value={token} /></label>
    </div>
  );
}
