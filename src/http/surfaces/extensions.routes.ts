import * as v from "valibot";
import { acceptExtensionUpdate } from "../../domain/extensions/accept-extension-update.ts";
import { getInstallation } from "../../domain/extensions/get-installation.ts";
import { installExtension, InstallExtensionInput } from "../../domain/extensions/install-extension.ts";
import { AuditPageQuery } from "../../domain/extensions/list-ext-connections.ts";
import { listInstallationAudit } from "../../domain/extensions/list-installation-audit.ts";
import { listInstallations } from "../../domain/extensions/list-installations.ts";
import { uninstallExtension } from "../../domain/extensions/uninstall-extension.ts";
import { updateExtensionManifest, UpdateManifestInput } from "../../domain/extensions/update-extension-manifest.ts";
import { GrantInput, updateInstallationPermissions } from "../../domain/extensions/update-installation-permissions.ts";
import { PreviewManifestInput, previewManifest } from "../../domain/marketplace/preview-manifest.ts";
import type { OwnerTokens } from "../../security/owner-token.ts";
import type { SurfaceDeps } from "../deps.ts";
import { OWNER_SECURITY } from "../plugins/owner-auth.ts";
import { jsonBody } from "../schemas/body.ts";
import { errors } from "../schemas/common.ts";
import { InstallationAuditDoc, InstallationDoc, InstalledDoc } from "../schemas/extensions.ts";
import { ManifestPreviewDoc } from "../schemas/marketplace.ts";
import { ownerApi } from "./owner.routes.ts";

const IdParam = v.object({ installationId: v.pipe(v.string(), v.minLength(1), v.maxLength(64)) });
/** A manifest is at most 32 KiB after JCS; the body around it a little more. */
const MANIFEST_BODY_BYTES = 48 * 1024;

/** Owner extension management (SPEC "Owner extension management"; EXTENSIONS §1.5). */
export function extensionOwnerRoutes(deps: SurfaceDeps, o: { tokens: Pick<OwnerTokens, "verify"> }) {
  const doc = (summary: string, description: string) => ({ tags: ["Extensions"], summary, description, security: OWNER_SECURITY });
  return ownerApi(o.tokens)
    .get("/extensions", ({ actor }) => listInstallations(deps.ctx(actor)), {
      response: { 200: v.object({ installations: v.array(InstallationDoc) }), ...errors(401) },
      detail: doc("List installed extensions", "Newest first; uninstalled ones stay listed (their audit chain is kept)."),
    })
    .post(
      "/extensions/install",
      async ({ actor, body, set }) => {
        const result = await installExtension(deps.ctx(actor), body);
        set.status = 201;
        return result;
      },
      {
        body: jsonBody(InstallExtensionInput, { maxBytes: MANIFEST_BODY_BYTES }),
        response: { 201: InstalledDoc, ...errors(400, 401, 404, 409, 422) },
        detail: doc(
          "Install an extension",
          "source inline (manifest in the body), url (fetched through the SSRF gate) or marketplace (extensionId's approved manifest here, 404 when it has none or is delisted; or at marketplaceUrl, another node's marketplace, through the SSRF gate, 422 manifest_unavailable); manifestHash pins the bytes consented to (409 manifest_changed). " +
            "The grant must be a subset of the manifest: 422 required_permission_missing, permission_not_requested, layer_not_requested, tier_above_manifest. " +
            "409 already_installed. Answers the installation and its first delegation token.",
        ),
      },
    )
    .post("/extensions/preview", ({ actor, body }) => previewManifest(deps.ctx(actor), body), {
      body: jsonBody(PreviewManifestInput),
      response: { 200: ManifestPreviewDoc, ...errors(400, 401, 422) },
      detail: doc(
        "Preview a manifest from a URL (for a consent screen)",
        "Fetched through the SSRF gate and validated (400 naming the member; 422 manifest_unavailable when the URL does not answer a JSON manifest). Answers what a consent screen shows: each permission with its title and reason, the layers, the tier, the intents, and the manifestHash to pass to the install. Nothing is stored.",
      ),
    })
    .get("/extensions/:installationId", ({ actor, params }) => getInstallation(deps.ctx(actor), params.installationId), {
      params: IdParam,
      response: { 200: InstallationDoc, ...errors(400, 401, 404) },
      detail: doc("One installation", "Its grant, keys, pending update and token expiry."),
    })
    .get("/extensions/:installationId/audit", ({ actor, params, query }) => listInstallationAudit(deps.ctx(actor), params.installationId, query), {
      params: IdParam,
      query: AuditPageQuery,
      response: { 200: InstallationAuditDoc, ...errors(400, 401, 404) },
      detail: doc(
        "An installation's audit trail",
        "Newest first, in INK's audit record form (ink-audit/1, as /ext/v1/audit serves it): every grant, renewal, call and intent. limit default 50, max 200; offset; total is the chain's length. chain.verified re-checks the whole stored chain (sequences +1 from 1, each previousEventHash the hash of its predecessor; reason and index name the first break). Kept after an uninstall.",
      ),
    })
    .put("/extensions/:installationId/permissions", ({ actor, params, body }) => updateInstallationPermissions(deps.ctx(actor), params.installationId, body), {
      params: IdParam,
      body: jsonBody(GrantInput),
      response: { 200: InstalledDoc, ...errors(400, 401, 404, 409, 422) },
      detail: doc("Change the grant", "Within the manifest (422 otherwise). A new token replaces the old one, which fails with 401 token_revoked from its next request."),
    })
    .post("/extensions/:installationId/update", ({ actor, params, body }) => updateExtensionManifest(deps.ctx(actor), params.installationId, body), {
      params: IdParam,
      body: jsonBody(UpdateManifestInput, { maxBytes: MANIFEST_BODY_BYTES }),
      response: { 200: InstallationDoc, ...errors(400, 401, 404, 409, 422) },
      detail: doc("Offer a new manifest version", "Asking for nothing more: applied at once (dropped keys stay valid 24 h). Asking for more: status pending_update until accept-update; the grant is not widened."),
    })
    .post("/extensions/:installationId/accept-update", ({ actor, params }) => acceptExtensionUpdate(deps.ctx(actor), params.installationId), {
      params: IdParam,
      response: { 200: InstallationDoc, ...errors(400, 401, 404, 409) },
      detail: doc("Accept a pending manifest update", "The new manifest and keys apply; the grant keeps what the new manifest still asks for."),
    })
    .delete("/extensions/:installationId", ({ actor, params }) => uninstallExtension(deps.ctx(actor), params.installationId), {
      params: IdParam,
      response: { 200: InstallationDoc, ...errors(400, 401, 404) },
      detail: doc("Uninstall", "status uninstalled: every request with its token answers 401 installation_inactive. The audit chain is kept."),
    });
}
