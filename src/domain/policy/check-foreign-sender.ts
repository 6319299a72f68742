import type { OwnerPolicy } from "./owner-policy.ts";

/**
 * The reference foreign-sender policy (PRODUCT-SURFACE §6), applied to a stranger's connection
 * request. Precedence: block list → opt-in → DID allow list → method allow list → host allow list.
 * Returns the reference reason code.
 */
export type ForeignSenderDecision =
  | { ok: true; reason: "ok_foreign_user_opt_in" }
  | {
      ok: false;
      reason:
        | "block_did_in_user_block_list"
        | "block_recipient_not_accepting_foreign"
        | "block_did_not_in_user_allow_list"
        | "block_method_not_in_user_allow_list"
        | "block_host_not_in_user_allow_list";
    };

export function checkForeignSender(policy: OwnerPolicy, principal: string, from: string): ForeignSenderDecision {
  // The lists hold canonical principals (policy/internal/principals.ts): compare the sender's, never `from` as typed.
  if (policy.blockedDids.includes(principal)) return { ok: false, reason: "block_did_in_user_block_list" };
  if (!policy.acceptForeignAgents) return { ok: false, reason: "block_recipient_not_accepting_foreign" };
  if (policy.allowedDids.length > 0) {
    return policy.allowedDids.includes(principal)
      ? { ok: true, reason: "ok_foreign_user_opt_in" }
      : { ok: false, reason: "block_did_not_in_user_allow_list" };
  }
  if (policy.allowedMethods.length > 0 && !policy.allowedMethods.some((m) => principal.startsWith(m))) {
    return { ok: false, reason: "block_method_not_in_user_allow_list" };
  }
  if (policy.allowedHosts.length > 0) {
    const host = didWebHost(from);
    const allowed = host !== null && policy.allowedHosts.some((h) => host === h || host.endsWith(`.${h}`));
    if (!allowed) return { ok: false, reason: "block_host_not_in_user_allow_list" };
  }
  return { ok: true, reason: "ok_foreign_user_opt_in" };
}

/** did:web hosts are compared lower-cased without trailing dots (PRODUCT-SURFACE §6). */
function didWebHost(did: string): string | null {
  const m = /^did:web:([^:%]+)/.exec(did);
  return m ? m[1]!.toLowerCase().replace(/\.+$/, "") : null;
}
