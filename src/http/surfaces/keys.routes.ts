import * as v from "valibot";
import { listAgentKeys } from "../../domain/identity/list-agent-keys.ts";
import { revokeKey } from "../../domain/identity/revoke-key.ts";
import { rotateSigningKey } from "../../domain/identity/rotate-signing-key.ts";
import type { OwnerTokens } from "../../security/owner-token.ts";
import type { SurfaceDeps } from "../deps.ts";
import { OWNER_SECURITY } from "../plugins/owner-auth.ts";
import { errors } from "../schemas/common.ts";
import { ownerApi } from "./owner.routes.ts";

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const AgentKeyDoc = v.object({
  keyId: v.string(),
  role: v.picklist(["signing", "encryption"]),
  status: v.picklist(["active", "retired", "revoked"]),
  publicKeyMultibase: v.string(),
  validFrom: v.string(),
  validUntil: v.nullable(v.string()),
  revokedAt: v.nullable(v.string()),
});

const RevocationDoc = v.object({
  revokedKeyId: v.string(),
  role: v.picklist(["signing", "encryption"]),
  revokedAt: v.string(),
  replacementKeyId: v.pipe(v.nullable(v.string()), v.description("The new active key of the same role when the revoked key was the active one")),
  keySetVersion: v.number(),
});

const RotationDoc = v.object({ activeKeyId: v.string(), retiredKeyIds: v.array(v.string()), keySetVersion: v.number() });

/** The agent's keys for the owner (public halves only) and emergency revocation (`kith keys revoke`). */
export function keysRoutes(deps: SurfaceDeps, o: { tokens: Pick<OwnerTokens, "verify"> }) {
  const doc = (summary: string, description: string) => ({ tags: ["Owner"], summary, description, security: OWNER_SECURITY });
  return ownerApi(o.tokens)
    .get(
      "/keys",
      ({ actor }) =>
        listAgentKeys(deps.ctx(actor)).map((k) => ({
          keyId: k.keyId,
          role: k.role,
          status: k.status,
          publicKeyMultibase: k.publicKeyMultibase,
          validFrom: iso(k.validFrom)!,
          validUntil: iso(k.validUntil),
          revokedAt: iso(k.revokedAt),
        })),
      {
        response: { 200: v.array(AgentKeyDoc), ...errors(401) },
        detail: doc("The agent's keys", "Every signing (Ed25519) and encryption (X25519) key the agent has held, oldest first, with its status and validity window. Never private keys."),
      },
    )
    .post("/keys/rotate", ({ actor }) => rotateSigningKey(deps.ctx(actor)), {
      response: { 200: RotationDoc, ...errors(401, 404, 409) },
      detail: doc(
        "Rotate the signing key",
        "INK §10 planned rotation (as `kith keys rotate`): a new Ed25519 key becomes active, the previous one retired (it still verifies what it " +
          "signed before, never a new live request); `keySetVersion` goes up and the card shows it at once, with a new `rotationChain` link.",
      ),
    })
    .post("/keys/:keyId/revoke", ({ actor, params }) => revokeKey(deps.ctx(actor), { keyId: params.keyId }), {
      params: v.object({ keyId: v.pipe(v.string(), v.minLength(1), v.maxLength(128)) }),
      response: { 200: RevocationDoc, ...errors(400, 401, 404, 409) },
      detail: doc(
        "Revoke a compromised key",
        "INK §10 emergency revocation: the key never verifies again, not even what it signed before. The card lists it as `revoked` with " +
          "`revokedAt`, `keySetVersion` goes up and `rotationChain` gains a link, at once. Revoking the active key of a role makes a new active " +
          "key of that role in the same step. Peers follow on their next card fetch. 404 unknown key id, 409 already revoked.",
      ),
    });
}
