import { Elysia } from "elysia";
import * as v from "valibot";
import { answerDiscoveryQuery, MAX_QUERY_BYTES } from "../../domain/discovery/answer-discovery-query.ts";
import { receiveListing } from "../../domain/discovery/receive-listing.ts";
import { MAX_LISTING_BYTES } from "../../domain/peers/peer-requests.ts";
import type { SurfaceDeps } from "../deps.ts";
import { InkRefusal } from "../ink-errors.ts";
import { inkSignature } from "../plugins/ink-signature.ts";
import { routeOptions } from "../plugins/route-options.ts";
import { DiscoveryQueryBodyDoc, ListingBodyDoc } from "../schemas/ink-bodies.ts";
import { DiscoveryQueryAnswerDoc, ListingAnswerDoc } from "../schemas/discovery.ts";

const PER_IP_LISTING = { bucket: "directory-listing-ip", limit: 20, windowMs: 60_000 };
const PER_IP_QUERY = { bucket: "discovery-query-ip", limit: 60, windowMs: 60_000 };

const InkError = v.object({ error: v.string(), code: v.string(), protocol: v.literal("ink/0.1"), message: v.string() });
const inkErrors = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, InkError]));

/**
 * The directory's INK surface, as declarations: listing requests from other agents and signed
 * discovery queries, read and authenticated by the INK signature plugin (plugins/ink-signature.ts);
 * each route calls its verb with the `agent` actor and maps the outcome to INK's answer.
 */
export function directoryRoutes(deps: SurfaceDeps) {
  return new Elysia({ name: "kith/directory" })
    .use(routeOptions)
    .use(inkSignature(deps))
    .post(
      "/ink/v1/directory/listings",
      ({ actor, signed }) => {
        const outcome = receiveListing(deps.ctx(actor), signed);
        if (!outcome.ok) throw new InkRefusal(outcome.reason, outcome.detail, outcome.retryAfterSeconds);
        const { ok: _, ...answer } = outcome;
        return Response.json(answer);
      },
      {
        parse: "none",
        inkListing: { perIp: PER_IP_LISTING, maxBytes: MAX_LISTING_BYTES },
        bodyDoc: ListingBodyDoc,
        response: { 200: ListingAnswerDoc, ...inkErrors(400, 401, 403, 404, 409, 413, 415, 429) },
        detail: {
          tags: ["INK"],
          summary: "Directory listing: another agent asks this node to list (or delist) it",
          security: [{ inkSignature: [] }],
          description:
            "Body (strict): `{protocol: \"ink/0.1\", type: \"network.<svc|tulpa|ink>.directory_listing\", action: \"publish\"|\"unpublish\", " +
            "from: <requester agent id>, to: <this node's agent id>, cardUrl: <https URL of the requester's card, …/ink/v1/<from>/agent.json>, " +
            "nonce, timestamp}` with an INK-Ed25519 transport signature over this path. The node fetches the card itself (SSRF gate, " +
            "discovery-fetch contract, agentId === from, within budgets for fetches strangers cause), binds it to the id (keys other than a " +
            "key-derived id's genesis key count only under a card proof rooted in it), verifies the signature under the bound keys, and " +
            "for publish requires the card's discovery descriptor `enabled: true`, scope `public`; then indexes the card's public profile " +
            "snapshot. 400 malformed, 401 authentication (`unresolvable_sender_key` for any problem with the card, whatever it was; retry " +
            "later), 403 not opted in or own agent, 409 replay, 429 over the per-IP or per-requester limit. 64 KiB, 20 per minute per IP, " +
            "10 per minute per authenticated requester. See docs/decisions/directory-listings.md.",
        },
      },
    )
    .post(
      "/ink/v1/discovery/query",
      ({ actor, signed }) => {
        const outcome = answerDiscoveryQuery(deps.ctx(actor), signed);
        if (!outcome.ok) throw new InkRefusal(outcome.reason, outcome.detail, outcome.retryAfterSeconds);
        return Response.json({ protocol: "ink/0.1", results: outcome.results, query: outcome.query }, { headers: { "cache-control": "no-store" } });
      },
      {
        parse: "none",
        inkDiscoveryQuery: { perIp: PER_IP_QUERY, maxBytes: MAX_QUERY_BYTES },
        bodyDoc: DiscoveryQueryBodyDoc,
        response: { 200: DiscoveryQueryAnswerDoc, ...inkErrors(400, 401, 403, 404, 409, 413, 415, 429) },
        detail: {
          tags: ["INK"],
          summary: "Answer a signed INK discovery-query envelope (INK discovery profile) with public listings by tag",
          description:
            "Body: the strict envelope `{protocol: \"ink/0.1\", type: \"network.<svc|tulpa|ink>.discovery_query\", from, to, nonce, timestamp, " +
            "query: {tags?, scope?, limit?}, signature}` (body signature, §7 domain). Verified in INK's order: schema (400 `schema`) → " +
            "signature (401 `signature`) → `to` is this node's agent id (403 `audience`) → freshness (401 `expired` / `not_yet_valid`) → " +
            "(from, nonce) replay (409 `replay`). Results: listings carrying every tag as a tag or skill, at most `limit` (default 20).",
        },
      },
    );
}
