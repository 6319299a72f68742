/** @jsxImportSource preact */
import { useState } from "preact/hooks";
import { api, publicJson } from "../lib/api.ts";
import { type ConsentDetails, type Installation, type MarketDetails, marketPath } from "../lib/extensions.ts";
import { intentLabel } from "../lib/format.ts";
import { useLoad } from "../lib/live.ts";
import { link } from "../lib/router.ts";
import { Badge, Loaded, PageHeader, Section, useAction } from "../ui/kit.tsx";
import { fullGrant, GrantForm, TokenNotice, withRequired } from "./grant-form.tsx";

/**
 * The consent screen (EXTENSIONS §1.5): what the manifest asks — each permission in plain words
 * with the extension's reason, the circles, the autonomy tier — and the manifest hash the install
 * pins (the node refuses other bytes, 409 manifest_changed). The owner may narrow before installing.
 */
export function Consent({ extensionId }: { extensionId: string }) {
  const details = useLoad(() => publicJson<MarketDetails>(marketPath(extensionId)), `consent:${extensionId}`, { live: false });
  return <Loaded state={details}>{(d) => <ConsentView d={{ ...d, version: d.latestVersion }} source={{ source: "marketplace", extensionId }} />}</Loaded>;
}

/** The same consent for a manifest at a URL: the node fetches and validates it (the page may not fetch other origins). */
export function ConsentFromUrl({ manifestUrl }: { manifestUrl: string }) {
  const details = useLoad(() => api<ConsentDetails>("/extensions/preview", { body: { manifestUrl } }), `preview:${manifestUrl}`, { live: false });
  return <Loaded state={details}>{(d) => <ConsentView d={d} source={{ source: "url", manifestUrl }} />}</Loaded>;
}

function ConsentView({ d, source }: { d: ConsentDetails; source: { source: "marketplace"; extensionId: string } | { source: "url"; manifestUrl: string } }) {
  const action = useAction();
  const [installed, setInstalled] = useState<{ installation: Installation; delegationToken: string } | null>(null);
  const layers = d.layersRequested?.requested ?? [];
  const tier = d.maxAutonomyTier ?? "transactional";
  const install = (grant: Parameters<typeof withRequired>[0]) =>
    void action.run("install", async () => setInstalled(await api(`/extensions/install`, { body: { ...source, manifestHash: d.manifestHash, grant: withRequired(grant, d.permissionsSummary) } })), `${d.name} installed`);
  return (
    <>
      <PageHeader title={`Install ${d.name}?`} subtitle={d.summary} actions={source.source === "marketplace" ? <a class="btn btn-ghost" href={link("marketplace")}>Back to the marketplace</a> : <a class="btn btn-ghost" href={link("extensions")}>Back to extensions</a>} />
      <Section title="Who made it">
        <dl class="facts">
          <div><dt>Publisher</dt><dd>{d.publisher.name} ({d.publisher.domain}) {d.publisher.verified ? <Badge tone="good">verified</Badge> : <Badge>not verified</Badge>}</dd></div>
          <div><dt>Version</dt><dd>{d.version}</dd></div>
          {source.source === "url" ? <div><dt>From</dt><dd class="breakall">{source.manifestUrl}</dd></div> : <div><dt>Rating</dt><dd>{!d.reviewStats || d.reviewStats.average === null ? "no ratings yet" : `${d.reviewStats.average} / 5 (${d.reviewStats.count})`}</dd></div>}
          <div><dt>May send</dt><dd>{d.intents.length ? d.intents.map(intentLabel).join(", ") : "nothing"}</dd></div>
          <div><dt>Manifest</dt><dd><code class="mono breakall">{d.manifestHash}</code></dd></div>
        </dl>
      </Section>
      {installed ? (
        <Section title="Installed">
          <TokenNotice token={installed.delegationToken} />
          <a href={link("extensions", installed.installation.installationId)}>Open {d.name}</a>
        </Section>
      ) : (
        <Section title="What it asks for">
          <p class="hint">Untick what you do not want to give. Required permissions come with the install; anything it sends above the tier you choose waits for you in Approvals.</p>
          <GrantForm asked={d.permissionsSummary} layers={layers} layersReason={d.layersRequested?.reason} maxTier={tier} initial={fullGrant(d.permissionsSummary, layers, tier)} submit="Install" busy={action.busy === "install"} error={action.error} onSubmit={install} />
        </Section>
      )}
    </>
  );
}
