import { cliName } from "../command.ts";
import { readFileSync } from "node:fs";
import { createPeerHttp, type PeerFailure, type PeerResponse } from "../../adapters/peer-http.ts";
import { findAgentRow } from "../../domain/agent/find-agent-row.ts";
import { agentIdOf } from "../../domain/agent/agent-id-of.ts";
import { checkCardFetchResponse, isSignedCard } from "../../ink/index.ts";
import { nativeStrictVerifier } from "../../security/ed25519-native.ts";
import { cardUrlOf } from "../identity.ts";
import { fail, formatAge, ok, skip, warn, type CheckResult, type DoctorContext } from "./check.ts";

/**
 * The node as the world sees it: the public URL is https, the card served there is fetched the
 * way a peer fetches it (INK §12: SSRF gate, no redirects, 64 KiB, then the response contract and
 * the card proof), the certificate's expiry, and the clock against that server's Date.
 */
export async function checkPublicFace(ctx: DoctorContext & { publicUrlConfigured: boolean }): Promise<CheckResult[]> {
  const url = ctx.config.publicUrl;
  if (!ctx.publicUrlConfigured) {
    return [
      warn("public-url", `no public URL is set (the node calls itself ${url}): peers cannot reach it`, `set it: ${cliName()} serve --public-url https://your.host (or KITH_PUBLIC_URL)`),
      ...["card", "tls", "clock"].map((n) => skip(n, "no public URL")),
    ];
  }
  if (!url.startsWith("https://")) {
    return [
      fail("public-url", `${url} is not https: INK peers only accept https endpoints`, `serve the node over TLS (a reverse proxy such as Caddy, or KITH_TLS_CERT_FILE) and set --public-url https://…`),
      ...["card", "tls", "clock"].map((n) => skip(n, "the public URL is not https")),
    ];
  }
  const agent = ctx.db ? findAgentRow(ctx.db) : null;
  if (!agent) return [ok("public-url", url), skip("card", "no agent yet"), await checkCertificate(ctx, url), skip("clock", "no agent yet")];
  const agentId = agentIdOf(agent, ctx.config.wordmark);
  const cardUrl = cardUrlOf(ctx.config, agent.genesisKey);
  const extraCa = ctx.config.tlsCaFile ? [readFileSync(ctx.config.tlsCaFile, "utf8")] : [];
  const http = createPeerHttp({ allowPrivateAddresses: ctx.config.allowPrivatePeers, extraCa });
  const res = await http.request(cardUrl, { headers: { accept: "application/json" }, timeoutMs: ctx.limits.probeTimeoutMs, maxBytes: 65_536 });
  const started = Date.now();
  return [ok("public-url", url), checkCard(ctx, res, cardUrl, agentId), await checkCertificate(ctx, url), checkClock(ctx, res, started)];
}

function checkCard(ctx: DoctorContext, res: PeerResponse | PeerFailure, cardUrl: string, agentId: string): CheckResult {
  if (!res.ok) return fail("card", `${cardUrl}: ${res.reason} (${res.detail})`, unreachableFix(res));
  if (res.status === 404) return warn("card", `${cardUrl} answers 404: the card is not public, so only connections can read it`, `make it public if strangers should reach you: PUT /api/svc/card/visibility {"visibility":"public"}`);
  if (res.status >= 300 && res.status < 400) return fail("card", `${cardUrl} answers ${res.status} (a redirect to ${res.headers.get("location") ?? "?"}); peers never follow redirects`, `serve the node itself at the public URL (the reverse proxy must forward /ink/v1/ without redirecting)`);
  const checked = checkCardFetchResponse({
    status: res.status,
    contentType: res.headers.get("content-type"),
    contentLength: res.headers.get("content-length"),
    body: res.body,
    requestedAgentId: agentId,
    resolutionDid: null,
    allowPrivateHosts: ctx.config.allowPrivatePeers,
    proof: { verifier: nativeStrictVerifier },
  });
  if (!checked.ok) {
    return fail("card", `the card at ${cardUrl} does not pass INK's card fetch: ${checked.reason}${checked.issue ? ` (${checked.issue})` : ""} (HTTP ${res.status})`, `make sure the public URL reaches this node (${agentId}) and nothing rewrites the response on the way`);
  }
  if (!isSignedCard(checked.card)) return fail("card", `the card at ${cardUrl} is not signed`, `restart kith serve with this binary: it serves a signed card`);
  if (!checked.card.endpoint.startsWith(`${ctx.config.publicUrl}/`)) return warn("card", `the card's endpoint ${checked.card.endpoint} is not under the public URL ${ctx.config.publicUrl}`, `restart kith serve with the public URL you mean (--public-url or KITH_PUBLIC_URL)`);
  return ok("card", `${cardUrl} serves this node's signed card and it validates`);
}

function unreachableFix(res: PeerFailure): string {
  switch (res.reason) {
    case "blocked_host":
    case "blocked_address":
      return "the public URL names a private or loopback address, which peers refuse; use a public host name (KITH_ALLOW_PRIVATE_PEERS=true only on a LAN or in tests)";
    case "dns_failed":
      return "the host name does not resolve: check its DNS records";
    default:
      return "check that kith serve is running and that the reverse proxy forwards the public URL to it";
  }
}

/** The certificate the public URL presents: trusted, and how long until it expires. */
async function checkCertificate(ctx: DoctorContext, publicUrl: string): Promise<CheckResult> {
  const url = new URL(publicUrl);
  const tls = await import("node:tls");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const extraCa = ctx.config.tlsCaFile ? [readFileSync(ctx.config.tlsCaFile, "utf8")] : [];
  const peer = await new Promise<{ validTo: string; authorized: boolean; error: string | null } | { failure: string }>((resolve) => {
    const socket = tls.connect({ host, port: Number(url.port || 443), servername: /^[\d.:]+$/.test(host) ? undefined : host, rejectUnauthorized: false, ...(extraCa.length ? { ca: [...tls.rootCertificates, ...extraCa] } : {}) });
    const timer = setTimeout(() => (socket.destroy(), resolve({ failure: `no TLS handshake within ${ctx.limits.probeTimeoutMs} ms` })), ctx.limits.probeTimeoutMs);
    socket.once("secureConnect", () => {
      clearTimeout(timer);
      const cert = socket.getPeerCertificate();
      resolve({ validTo: cert.valid_to, authorized: socket.authorized, error: socket.authorizationError ? String(socket.authorizationError) : null });
      socket.end();
    });
    socket.once("error", (e) => (clearTimeout(timer), resolve({ failure: e.message })));
  });
  if ("failure" in peer) return fail("tls", `no TLS connection to ${url.host}: ${peer.failure}`, "check that kith serve (or its reverse proxy) listens there with TLS");
  const expires = Date.parse(peer.validTo);
  const left = expires - ctx.now;
  const day = 86_400_000;
  const when = `expires ${new Date(expires).toISOString()}`;
  const renew = "renew the certificate (certbot renew, or check your reverse proxy's ACME renewal), then restart or reload what serves it";
  if (!peer.authorized) return fail("tls", `the certificate of ${url.host} is not trusted (${peer.error}); ${when}`, `use a certificate from a public CA (Let's Encrypt); peers refuse others`);
  if (left <= 0) return fail("tls", `the certificate of ${url.host} expired ${formatAge(-left)} ago`, renew);
  if (left < ctx.limits.certFailDays * day) return fail("tls", `the certificate of ${url.host} ${when}, in ${formatAge(left)}`, renew);
  if (left < ctx.limits.certWarnDays * day) return warn("tls", `the certificate of ${url.host} ${when}, in ${formatAge(left)}`, renew);
  return ok("tls", `the certificate of ${url.host} is trusted and ${when} (in ${formatAge(left)})`);
}

/** INK §8 refuses timestamps more than 30 s ahead: a fast or slow clock breaks delivery both ways. */
function checkClock(ctx: DoctorContext, res: PeerResponse | PeerFailure, receivedAt: number): CheckResult {
  if (!res.ok) return skip("clock", "the public URL did not answer");
  const date = res.headers.get("date");
  const theirs = date ? Date.parse(date) : NaN;
  if (Number.isNaN(theirs)) return skip("clock", "the public URL's response has no Date header");
  // Date has 1 s resolution: the answer was made within the second before it was received.
  const skew = receivedAt - theirs - 500;
  const message = `this machine's clock is ${Math.abs(Math.round(skew / 1000))} s ${skew >= 0 ? "ahead of" : "behind"} the public URL's server`;
  const fix = "synchronize the clock (timedatectl set-ntp true, or install chrony)";
  if (Math.abs(skew) > ctx.limits.clockFailMs) return fail("clock", `${message}; INK peers refuse messages stamped more than 30 s ahead or 300 s behind`, fix);
  if (Math.abs(skew) > ctx.limits.clockWarnMs) return warn("clock", message, fix);
  return ok("clock", message);
}
