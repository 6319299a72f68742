import * as v from "valibot";
import { getPublication } from "../../domain/discovery/get-publication.ts";
import { listDirectoryListings, ListingsQuery } from "../../domain/discovery/list-directory-listings.ts";
import { publishAgent, PublishInput } from "../../domain/discovery/publish-agent.ts";
import { unpublishAgent } from "../../domain/discovery/unpublish-agent.ts";
import type { OwnerTokens } from "../../security/owner-token.ts";
import type { SurfaceDeps } from "../deps.ts";
import { OWNER_SECURITY } from "../plugins/owner-auth.ts";
import { jsonBody } from "../schemas/body.ts";
import { errors } from "../schemas/common.ts";
import { DirectoryListingDoc, PublicationDoc } from "../schemas/discovery.ts";
import { pageDoc } from "../schemas/federation.ts";
import { ownerApi } from "./owner.routes.ts";

/** The owner's side of discovery: publish, unpublish, the publication state, and the directory's listings. */
export function discoveryOwnerRoutes(deps: SurfaceDeps, o: { tokens: Pick<OwnerTokens, "verify"> }) {
  const doc = (summary: string, description: string) => ({ tags: ["Discovery registry"], summary, description, security: OWNER_SECURITY });
  return ownerApi(o.tokens)
    .get("/discovery", ({ actor }) => getPublication(deps.ctx(actor)), {
      response: { 200: PublicationDoc, ...errors(401, 404) },
      detail: doc("Publication state", "Whether the agent is listed, its card's discovery descriptor, and each configured directory's push state (queued with attempts and next attempt, delivered, failed with the error)."),
    })
    .post("/discovery/publish", ({ actor, body }) => publishAgent(deps.ctx(actor), body ?? {}), {
      body: jsonBody(v.optional(PublishInput)),
      response: { 200: PublicationDoc, ...errors(400, 401, 404, 409) },
      detail: doc(
        "Make the agent discoverable",
        "Lists the agent from its `public` profile snapshot and turns the card's INK discovery descriptor on (`enabled: true`, scope public, tags). " +
          "Optional body `{tags?: string[] (≤32, 1-64 chars), location?: string|null (≤200), roles?: string[] (≤16, 1-100 chars)}`; an omitted member keeps " +
          "its previous value. Queues a publish to every directory of KITH_DIRECTORIES (retried with backoff). 409 while the card is private " +
          "(PUT /api/svc/visibility).",
      ),
    })
    .post("/discovery/unpublish", ({ actor }) => unpublishAgent(deps.ctx(actor)), {
      response: { 200: PublicationDoc, ...errors(401, 404) },
      detail: doc("Remove the agent from the registry", "Delists it here at once, sets the card's descriptor to `enabled: false` and queues an unpublish to every configured directory."),
    })
    .get("/discovery/listings", ({ actor, query }) => listDirectoryListings(deps.ctx(actor), query), {
      query: ListingsQuery,
      response: { 200: pageDoc(DirectoryListingDoc), ...errors(400, 401) },
      detail: doc(
        "What this node's directory holds",
        "Every listing (own and remote) with its status: listed, delisted (by the agent) or dropped (failed re-validation, with the reason). " +
          "Filters: status (listed, delisted, dropped, all; default all), source (self, remote). Paginated: limit (1-200, default 50) and cursor.",
      ),
    });
}
