// Checks for upstream `test-vectors/witness.json`: audit submit and query to a witness under INK
// transport auth (signature base, path and recipient binding, body tampering), the freshness and
// nonce rules, and the inner event signature a witness checks separately. Each vector becomes one
// named check; a vector whose shape no check knows fails instead of being skipped.
import { expect } from "bun:test";
import { buildSignatureBase, canonicalize, checkReplay, ed25519PublicKey, type Ed25519Verifier, parseTimestamp, signTransport, verifyTransportSignature } from "../../../src/ink/index.ts";
import { verifyAuditEventSignature } from "../../../src/ink/profiles.ts";
import { hex, loadTestVectors } from "./fixtures.ts";
import type { VectorCheck } from "./test-vector-checks.ts";

type Transport = { method: string; path: string; recipientDid: string; body: any; timestamp: string };

export function witnessChecks(): VectorCheck[] {
  const file = loadTestVectors("witness");
  const k = loadTestVectors("keys");
  const alice = ed25519PublicKey(hex(k.alice.signing.privateKeyHex));
  const aliceKeys = { kind: "key-set" as const, source: "card" as const, keys: [{ keyId: "alice-sig", publicKey: alice, status: "active" as const }] };
  const transport = (i: any, over: Partial<Transport> = {}): Transport => ({ method: i.method, path: i.path, recipientDid: i.recipientDid, body: i.body, timestamp: i.timestamp, ...over });
  return file.vectors.map((v: any): VectorCheck => {
    const i = v.input;
    const e = v.expected;
    const check = (signatures: boolean, run: (verifier: Ed25519Verifier) => void): VectorCheck => ({ file: "witness", name: v.id, signatures, run });
    if (i.signerPrivateKeyHex) {
      // A valid request: canonical body, signature base and signature reproduced byte for byte.
      return check(true, (verifier) => {
        const t = transport(i);
        expect(canonicalize(i.body)).toEqual({ ok: true, text: e.canonicalBody });
        const base = buildSignatureBase(t);
        expect(base.ok && base.base).toBe(e.signatureBase);
        const signed = signTransport(t, hex(i.signerPrivateKeyHex));
        expect(signed.ok && signed.signature).toBe(e.signatureBase64url);
        expect(verifyTransportSignature(t, e.signatureBase64url, ed25519PublicKey(hex(i.signerPrivateKeyHex)), verifier)).toBe(e.accepted);
        if (i.eventSignatureBase64url) {
          expect(i.body.event.agentSignature).toBe(i.eventSignatureBase64url);
          expect(verifyAuditEventSignature(i.body.event, aliceKeys, verifier).ok).toBe(true);
        }
      });
    }
    if (i.messageTimestamp) {
      // The body nonce of a witness message follows the handshake body rule (1..256), not the
      // 16..256 transport nonce: these vectors use 12-14 characters (docs/decisions/ink-vectors-vs-spec.md).
      return check(false, () => {
        const r = checkReplay({ timestamp: i.messageTimestamp, nonce: i.nonce, now: parseTimestamp(i.receiverClock) ?? Number.NaN, seen: (n) => (i.previouslySeenNonces ?? []).includes(n), nonceRule: "handshake" });
        expect({ accepted: r.ok, errorCode: r.ok ? undefined : r.reason }).toEqual({ accepted: e.accepted, errorCode: e.errorCode });
      });
    }
    if (i.transportSignatureBase64url) {
      // Transport auth holds, the event inside does not: the witness must refuse.
      return check(true, (verifier) => {
        expect(verifyTransportSignature(transport(i), i.transportSignatureBase64url, alice, verifier)).toBe(e.transportAuthValid);
        expect(verifyAuditEventSignature(i.body.event, aliceKeys, verifier).ok).toBe(e.eventSignatureValid);
        expect(e.accepted).toBe(false);
      });
    }
    if (i.originalSignatureBase64url) {
      // A signature made for one path, recipient or body, presented with another.
      return check(true, (verifier) => {
        const presented = transport(i, { path: i.replayPath ?? i.path ?? i.originalPath, recipientDid: i.replayRecipient ?? i.recipientDid });
        expect(verifyTransportSignature(presented, i.originalSignatureBase64url, alice, verifier)).toBe(e.accepted);
        if (i.originalPath || i.originalRecipient) {
          const original = transport(i, { path: i.originalPath ?? i.path, recipientDid: i.originalRecipient ?? i.recipientDid });
          expect(verifyTransportSignature(original, i.originalSignatureBase64url, alice, verifier)).toBe(true);
        }
      });
    }
    if (i.intentPath && i.submitPath) {
      // An intent signed for a peer's /ink/v1/intent, replayed as a submit to a witness.
      return check(true, (verifier) => {
        const body = file.vectors[0].input.body;
        const intent = { method: "POST", path: i.intentPath, recipientDid: i.intentRecipient, body, timestamp: body.timestamp };
        const signed = signTransport(intent, hex(k.alice.signing.privateKeyHex));
        if (!signed.ok) throw new Error("could not sign the intent");
        expect(verifyTransportSignature(intent, signed.signature, alice, verifier)).toBe(true);
        expect(verifyTransportSignature({ ...intent, path: i.submitPath, recipientDid: i.submitRecipient }, signed.signature, alice, verifier)).toBe(e.accepted);
      });
    }
    return check(false, () => {
      throw new Error(`witness vector ${v.id}: no check knows its shape (${Object.keys(i).join(", ")})`);
    });
  });
}
