/** @jsxImportSource preact */
import { useState } from "preact/hooks";
import { api, publicJson } from "../lib/api.ts";
import { type Installation, type MarketDetails, marketPath, permissionTitle, TIER_LABELS } from "../lib/extensions.ts";
import { LAYER_LABELS } from "../lib/format.ts";
import { useLoad } from "../lib/live.ts";
import { go, link, type Route } from "../lib/router.ts";
import { Badge, Button, ConfirmButton, Empty, Field, Loaded, Loading, Notice, PageHeader, Row, Section, useAction, When } from "../ui/kit.tsx";
import { Consent, ConsentFromUrl } from "./consent.tsx";
import { AuditTrail } from "./extension-audit.tsx";
import { GrantForm, TokenNotice, withRequired } from "./grant-form.tsx";
import { RateExtension } from "./marketplace.tsx";

const STATUS: Record<Installation["status"], [string, "good" | "warn" | "neutral"]> = { active: ["Active", "good"], pending_update: ["Update waiting", "warn"], uninstalled: ["Uninstalled", "neutral"] };

/** Installed extensions (`#/extensions`), one of them (`#/extensions/<installationId>`), or a consent screen (`#/extensions/install/<extensionId>`). */
export function Extensions({ route }: { route: Route }) {
  if (route.rest[0] === "install" && route.rest[1]) return <Consent extensionId={route.rest[1]} />;
  if (route.rest[0] === "install" && route.query.get("url")) return <ConsentFromUrl manifestUrl={route.query.get("url")!} />;
  if (route.rest[0]) return <InstallationDetail id={route.rest[0]} />;
  const list = useLoad(() => api<{ installations: Installation[] }>("/extensions"), "extensions");
  return (
    <>
      <PageHeader title="Extensions" subtitle="Apps that act for you, each within the grant you gave it." actions={<a class="btn btn-primary" href={link("marketplace")}>Browse the marketplace</a>} />
      <Loaded state={list}>
        {({ installations }) =>
          installations.length === 0 ? (
            <Empty title="No extensions yet" action={<a href={link("marketplace")}>Find one in the marketplace</a>}>An extension sees only the circles and permissions you grant, and you can narrow or remove that grant at any time.</Empty>
          ) : (
            <ul class="list" aria-label="Installed extensions">
              {installations.map((i) => (
                <Row
                  href={link("extensions", i.installationId)}
                  title={i.name}
                  meta={<>v{i.version} · installed <When iso={i.createdAt} /></>}
                  sub={i.status === "uninstalled" ? "No longer has access" : `${i.permissions.length} permissions · ${i.layers.map((l) => LAYER_LABELS[l] ?? l).join(", ") || "no circles"}`}
                  tags={<Badge tone={STATUS[i.status][1]}>{STATUS[i.status][0]}</Badge>}
                />
              ))}
            </ul>
          )
        }
      </Loaded>
      <FromUrl />
    </>
  );
}

/** An extension not in a marketplace: its manifest URL, then the same consent screen. */
function FromUrl() {
  const [url, setUrl] = useState("");
  return (
    <Section title="Install from a URL">
      <form class="row wrap" onSubmit={(e) => { e.preventDefault(); go(`${link("extensions", "install")}?${new URLSearchParams({ url: url.trim() })}`); }}>
        <Field label="Manifest URL" inline hint="The node fetches the manifest and shows what it asks before anything is installed.">
          {(id, hint) => <input id={id} type="url" required maxLength={2048} placeholder="https://example.com/kith-extension.json" aria-describedby={hint} value={url} onInput={(e) => setUrl(e.currentTarget.value)} />}
        </Field>
        <Button type="submit">Review</Button>
      </form>
    </Section>
  );
}

function InstallationDetail({ id }: { id: string }) {
  const state = useLoad(() => api<Installation>(`/extensions/${encodeURIComponent(id)}`), `ext:${id}`);
  return <Loaded state={state}>{(i) => <InstallationView i={i} />}</Loaded>;
}

function InstallationView({ i }: { i: Installation }) {
  const action = useAction();
  // What the manifest asks, in words: from the marketplace it came from; otherwise only the current grant (which can then be narrowed).
  const market = useLoad(() => (i.source === "marketplace" ? publicJson<MarketDetails>(marketPath(i.extensionId)) : Promise.resolve(null)), `market:${i.extensionId}`, { live: false });
  const [token, setToken] = useState<string | null>(null);
  const active = i.status !== "uninstalled";
  const asked = market.data?.permissionsSummary ?? i.permissions.map((name) => ({ name, required: false, reason: "granted at install", title: permissionTitle(name) }));
  const layers = market.data?.layersRequested?.requested ?? i.layers;
  return (
    <>
      <PageHeader title={i.name} subtitle={<>{i.extensionId} · v{i.version}</>} actions={<a class="btn btn-ghost" href={link("extensions")}>All extensions</a>} />
      {i.pendingUpdate && active && (
        <Section title="An update asks for more">
          <p>Version {i.pendingUpdate.version} wants more than you granted. Until you accept, the extension keeps running with its current grant.</p>
          <p class="muted small">Manifest <code class="mono">{i.pendingUpdate.manifestHash}</code></p>
          <div class="row"><Button kind="primary" busy={action.busy === "accept"} onClick={() => void action.run("accept", () => api(`/extensions/${i.installationId}/accept-update`, { method: "POST" }), "Update accepted")}>Accept the update</Button></div>
        </Section>
      )}
      <Section title="Access">
        <dl class="facts">
          <div><dt>State</dt><dd><Badge tone={STATUS[i.status][1]}>{STATUS[i.status][0]}</Badge></dd></div>
          <div><dt>Permissions</dt><dd>{i.permissions.length ? <ul class="plain">{i.permissions.map((p) => <li>{permissionTitle(p)} <code class="muted small">{p}</code></li>)}</ul> : "none"}</dd></div>
          <div><dt>Circles</dt><dd>{i.layers.map((l) => LAYER_LABELS[l] ?? l).join(", ") || "none"}</dd></div>
          <div><dt>Autonomy</dt><dd>{TIER_LABELS[i.maxAutonomyTier]}</dd></div>
          <div><dt>Token until</dt><dd><When iso={i.tokenExpiresAt} /></dd></div>
          <div><dt>Manifest</dt><dd><code class="mono breakall">{i.manifestHash}</code></dd></div>
        </dl>
      </Section>
      {active && (
        <Section title="Change the grant">
          <p class="hint">Narrowing takes effect at once: the extension's current token stops working and it must renew within the new grant.</p>
          {market.loading ? <Loading /> : (
              <GrantForm
                asked={asked}
                layers={layers}
                layersReason={market.data?.layersRequested?.reason}
                maxTier={market.data?.maxAutonomyTier ?? i.maxAutonomyTier}
                initial={{ permissions: i.permissions, layers: i.layers, maxAutonomyTier: i.maxAutonomyTier }}
                submit="Save the grant"
                busy={action.busy === "grant"}
                error={action.error}
                onSubmit={(grant) => void action.run("grant", async () => setToken((await api<{ delegationToken: string }>(`/extensions/${i.installationId}/permissions`, { method: "PUT", body: withRequired(grant, asked) })).delegationToken), "Grant saved")}
              />
          )}
          {token && <TokenNotice token={token} />}
        </Section>
      )}
      <AuditTrail installationId={i.installationId} />
      {i.source === "marketplace" && active && <RateExtension extensionId={i.extensionId} />}
      {active && (
        <Section title="Uninstall">
          <p class="hint">Every request it makes is refused from now on. Its audit trail is kept.</p>
          <div class="row"><ConfirmButton confirm="Uninstall it" busy={action.busy === "uninstall"} onConfirm={() => void action.run("uninstall", () => api(`/extensions/${i.installationId}`, { method: "DELETE" }), `${i.name} uninstalled`)}>Uninstall</ConfirmButton></div>
        </Section>
      )}
      {!active && <Notice>Uninstalled <When iso={i.updatedAt} />. <a href={link("extensions")}>Back to extensions</a></Notice>}
    </>
  );
}
