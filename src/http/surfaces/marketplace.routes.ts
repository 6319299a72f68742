import { Elysia } from "elysia";
import * as v from "valibot";
import { getMarketplaceExtension } from "../../domain/marketplace/get-marketplace-extension.ts";
import { listSubmissions } from "../../domain/marketplace/list-submissions.ts";
import { RatingInput, rateExtension } from "../../domain/marketplace/rate-extension.ts";
import { ReviewDecisionInput, reviewExtensionVersion } from "../../domain/marketplace/review-extension-version.ts";
import { MarketplaceQuery, searchMarketplace } from "../../domain/marketplace/search-marketplace.ts";
import { ListingStateInput, setListingState } from "../../domain/marketplace/set-listing-state.ts";
import { MarketplaceSettingsInput, setMarketplaceSettings } from "../../domain/marketplace/set-marketplace-settings.ts";
import { SubmitExtensionInput, submitExtension } from "../../domain/marketplace/submit-extension.ts";
import { receiveExtensionReview } from "../../domain/marketplace/receive-extension-review.ts";
import { verifyPublisher } from "../../domain/marketplace/verify-publisher.ts";
import { MAX_REVIEW_BYTES } from "../../domain/peers/peer-requests.ts";
import { InkRefusal } from "../ink-errors.ts";
import { inkSignature } from "../plugins/ink-signature.ts";
import { DomainError } from "../../domain/errors.ts";
import type { OwnerTokens } from "../../security/owner-token.ts";
import type { SurfaceDeps } from "../deps.ts";
import { OWNER_SECURITY, ownerAuth } from "../plugins/owner-auth.ts";
import { routeOptions } from "../plugins/route-options.ts";
import { jsonBody } from "../schemas/body.ts";
import { ErrorBody, errors } from "../schemas/common.ts";
import { ExtensionDetailsDoc, ListingDoc, PublisherCheckDoc, MarketplaceSettingsDoc, RatedDoc, ReviewedDoc, SearchResultsDoc, SubmissionsDoc, SubmittedDoc } from "../schemas/marketplace.ts";
import { ownerApi } from "./owner.routes.ts";

/** Public reads, per IP (SPEC Limits gives none for the marketplace; the same budget as /discover). */
const BROWSE_PER_IP = { bucket: "marketplace-ip", limit: 30, windowMs: 60_000 };
const MANIFEST_BODY_BYTES = 48 * 1024;
const IdParam = v.object({ extensionId: v.pipe(v.string(), v.minLength(1), v.maxLength(128)) });
const VersionParams = v.object({ extensionId: v.pipe(v.string(), v.minLength(1), v.maxLength(128)), version: v.pipe(v.string(), v.minLength(1), v.maxLength(32)) });
const REVIEW_PER_IP = { bucket: "marketplace-review-ip", limit: 20, windowMs: 60_000 };
const InkError = v.object({ error: v.string(), code: v.string(), protocol: v.literal("ink/0.1"), message: v.string() });
const ReviewBodyDoc = v.object({
  protocol: v.literal("ink/0.1"),
  type: v.pipe(v.string(), v.description("network.<svc|tulpa|ink>.marketplace_review")),
  from: v.string(),
  to: v.pipe(v.string(), v.description("This node's agent id")),
  nonce: v.string(),
  timestamp: v.string(),
  extensionId: v.string(),
  rating: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(5)),
  comment: v.optional(v.pipe(v.string(), v.maxLength(1000))),
});
const StateQuery = v.object({ state: v.optional(v.pipe(v.string(), v.maxLength(32))) });

/** SPEC "Marketplace": browse (no auth) and submit (owner); notes/EXTENSIONS.md §1.6. */
export function marketplaceRoutes(deps: SurfaceDeps, o: { tokens: Pick<OwnerTokens, "verify"> }) {
  const tags = ["Marketplace"];
  const publicCtx = (request: Request) => deps.ctx({ kind: "public", ip: deps.clientIp(request) });
  const browse = new Elysia({ name: "kith/marketplace" })
    .use(routeOptions)
    .get("/marketplace/extensions", ({ query, request }) => searchMarketplace(publicCtx(request), query), {
      perIp: BROWSE_PER_IP,
      query: MarketplaceQuery,
      response: { 200: SearchResultsDoc, ...errors(400, 429) },
      detail: {
        tags,
        summary: "Search the marketplace",
        description: "Listed extensions matching every word of `q` (2-200 characters, ≤8 words; word prefixes over name, summary, publisher and categories), best match first. `limit` 1-50 (default 20). 30 requests per minute per IP.",
      },
    })
    .get(
      "/marketplace/extensions/:extensionId",
      ({ params, request }) => {
        const found = getMarketplaceExtension(publicCtx(request), params.extensionId);
        if (!found) throw new DomainError("not_found", `no installable extension ${params.extensionId}`);
        return found;
      },
      {
        perIp: BROWSE_PER_IP,
        params: IdParam,
        response: { 200: ExtensionDetailsDoc, ...errors(400, 404, 429) },
        detail: {
          tags,
          summary: "One extension: what a consent screen shows",
          description: "The newest approved manifest and its hash, publisher (and badge), versions with their review states, review stats, each requested permission with its title and reason. 404 unless it has an approved version and is listed or unlisted.",
        },
      },
    );
  const owner = (summary: string, description: string) => ({ tags, summary, description, security: OWNER_SECURITY });
  const submit = new Elysia().use(ownerAuth(o.tokens)).post(
    "/marketplace/submit",
    async ({ actor, body, set }) => {
      const result = await submitExtension(deps.ctx(actor), body);
      if (result.reviewState === "approved") await verifyPublisher(deps.ctx(actor), result.extensionId);
      set.status = 201;
      return result;
    },
    {
      body: jsonBody(SubmitExtensionInput, { maxBytes: MANIFEST_BODY_BYTES }),
      response: { 201: SubmittedDoc, ...errors(400, 401, 409, 422) },
      detail: owner(
        "Submit an extension version for review",
        "`{manifest}` or `{manifestUrl}` (fetched through the SSRF gate). The manifest is validated (400 naming the member). 409 version_exists when that version is already submitted, in review or approved. With autoApprove on, it is approved and listed at once.",
      ),
    },
  );
  const manage = ownerApi(o.tokens)
    .get("/marketplace/submissions", ({ actor, query }) => listSubmissions(deps.ctx(actor), query.state), {
      query: StateQuery,
      response: { 200: SubmissionsDoc, ...errors(400, 401) },
      detail: owner("The review queue", "Submitted versions, newest first (at most 200); `state` filters by review state."),
    })
    .post(
      "/marketplace/extensions/:extensionId/versions/:version/review",
      async ({ actor, params, body }) => {
        const reviewed = reviewExtensionVersion(deps.ctx(actor), params.extensionId, params.version, body);
        if (reviewed.reviewState === "approved") await verifyPublisher(deps.ctx(actor), params.extensionId);
        return reviewed;
      },
      {
      params: VersionParams,
      body: jsonBody(ReviewDecisionInput),
      response: { 200: ReviewedDoc, ...errors(400, 401, 404, 409) },
      detail: owner("Review a submitted version", "`{decision: \"start\"}` (submitted → in_review), `{decision: \"approve\"}` (published; the first approval lists the extension and checks the publisher file), `{decision: \"reject\", reasons: [{code, message}]}`, `{decision: \"withdraw\"}` (the publisher's: submitted or in_review → withdrawn). 409 invalid_transition from any other state."),
      },
    )
    .post("/marketplace/extensions/:extensionId/verify-publisher", ({ actor, params }) => verifyPublisher(deps.ctx(actor), params.extensionId), {
      params: IdParam,
      response: { 200: PublisherCheckDoc, ...errors(400, 401, 404) },
      detail: owner(
        "Check the publisher's well-known file",
        "Fetches https://<publisher.domain>/.well-known/kith-publisher.json through the SSRF gate (cached an hour, 6 per hour per domain): verified when it lists the extension id with every active manifest key (`{extensions: [{id, keys: [publicKeyMultibase]}]}`). A badge, never a gate.",
      ),
    })
    .put("/marketplace/extensions/:extensionId/listing", ({ actor, params, body }) => setListingState(deps.ctx(actor), params.extensionId, body), {
      params: IdParam,
      body: jsonBody(ListingStateInput),
      response: { 200: ListingDoc, ...errors(400, 401, 404, 409) },
      detail: owner("Set the listing state", "listed (searchable), unlisted (installable by id or URL), delisted (no new installs), suspended (no new installs). 409 not_approved before a version is approved."),
    })
    .put("/marketplace/settings", ({ actor, body }) => setMarketplaceSettings(deps.ctx(actor), body), {
      body: jsonBody(MarketplaceSettingsInput),
      response: { 200: MarketplaceSettingsDoc, ...errors(400, 401) },
      detail: owner("Marketplace settings", "`autoApprove`: submissions are approved and listed at once (a personal node reviewing its own work)."),
    })
    .post(
      "/marketplace/extensions/:extensionId/reviews",
      ({ actor, params, body, set }) => {
        set.status = 201;
        return rateExtension(deps.ctx(actor), params.extensionId, body);
      },
      {
        params: IdParam,
        body: jsonBody(RatingInput),
        response: { 201: RatedDoc, ...errors(400, 401, 403, 404, 409) },
        detail: owner("Rate an installed extension", "Once per agent: 403 not_installed before an install, 409 already_reviewed the second time. `rating` 1-5, `comment` ≤ 1000 characters."),
      },
    );
  const signedReviews = new Elysia().use(routeOptions).use(inkSignature(deps)).post(
    "/marketplace/extensions/:extensionId/reviews",
    ({ actor, signed, params, set }) => {
      const outcome = receiveExtensionReview(deps.ctx(actor), params.extensionId, signed);
      if (!outcome.ok) throw new InkRefusal(outcome.reason, undefined, outcome.retryAfterSeconds);
      set.status = 201;
      return outcome.result;
    },
    {
      parse: "none",
      params: IdParam,
      inkMarketplaceReview: { perIp: REVIEW_PER_IP, maxBytes: MAX_REVIEW_BYTES },
      bodyDoc: ReviewBodyDoc,
      // Refusals of the signature plugin carry INK's error body; the verb's (403/404/409 and a path
      // mismatch 400) the node's.
      response: { 201: RatedDoc, ...errors(403), ...Object.fromEntries([400, 404, 409].map((s) => [s, v.union([ErrorBody, InkError])])), ...Object.fromEntries([401, 413, 415, 429].map((s) => [s, InkError])) },
      detail: {
        tags,
        summary: "Rate an extension as another node's agent (INK-signed)",
        security: [{ inkSignature: [] }],
        description:
          "Body (strict): `{protocol: \"ink/0.1\", type: \"network.<svc|tulpa|ink>.marketplace_review\", from, to: <this node's agent id>, nonce, timestamp, extensionId, rating 1-5, comment?}` " +
          "under an INK-Ed25519 transport signature by `from`. One vote per agent (409 already_reviewed); 409 replay; 20 per minute per IP, 10 per minute per agent.",
      },
    },
  );
  return new Elysia({ name: "kith/marketplace-all" }).use(browse).use(submit).use(manage).use(signedReviews);
}
