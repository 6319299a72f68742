import { signAgentCard, verifyAgentCardProof } from "../../../ink/index.ts";
import { nativeEd25519Sign, nativeStrictVerifier } from "../../../security/ed25519-native.ts";
import type { KeyVault } from "../../../adapters/key-vault.ts";
import type { With } from "../../context.ts";
import { type AgentCard } from "../get-agent-card.ts";

/**
 * Our card with its `cardSignature` by the current active signing key (INK §13 Phase B: producers
 * sign, with `keySetVersion` and `updatedAt`). The result is checked with the verifier peers run;
 * a card that would not verify (the key's private half missing, or a rotation made before this node
 * kept a rotation chain, so the key is not rooted at the genesis key) is served unsigned with a
 * warning rather than with a proof every verifier must reject.
 */
export function signOwnCard<T extends AgentCard>(ctx: Pick<With<"vault">, "log" | "vault">, card: T): T {
  const vault = ctx.vault;
  const { cardSignature: _old, ...body } = card;
  // Ed25519 signatures are deterministic: the same body under the same key signs to the same card,
  // so the last one is reused (signing and checking cost ~1 ms; a card is fetched on every contact).
  const text = JSON.stringify(body);
  const last = lastSigned.get(vault);
  if (last && last.text === text) return last.card as T;
  let key: ReturnType<KeyVault["find"]> = null;
  try {
    key = vault.find(card.currentSigningKeyId);
    if (!key) {
      vault.reload(); // a `kith keys rotate` in another process
      key = vault.find(card.currentSigningKeyId);
    }
  } catch (e) {
    ctx.log.warn("agent card served unsigned: the key file cannot be read", { error: e instanceof Error ? e.message : String(e) });
    return body as T;
  }
  if (!key) {
    ctx.log.warn("agent card served unsigned: the active signing key is not in the key file", { keyId: card.currentSigningKeyId });
    return body as T;
  }
  const signed = signAgentCard(body, key.privateKey, key.keyId, nativeEd25519Sign);
  if (!signed.ok) {
    ctx.log.warn("agent card served unsigned: not canonicalizable", { reason: signed.reason });
    return body as T;
  }
  const proof = verifyAgentCardProof(signed.card, { verifier: nativeStrictVerifier });
  if (!proof.ok) {
    ctx.log.warn("agent card served unsigned: its proof would not verify", { reason: proof.reason, issue: proof.issue });
    return body as T;
  }
  lastSigned.set(vault, { text, card: signed.card });
  return signed.card as T;
}

const lastSigned = new WeakMap<KeyVault, { text: string; card: AgentCard }>();
