// The wordmark is a parameter: re-sign a vector sample in `svc` mode and show that each mode
// rejects the other's ink/0.1 body signature while ink/0.2 verifies in both (INK §7, [C3]).
import { describe, expect, test } from "bun:test";
import { bodySignatureDomain, buildSignedEnvelope, decideInbound, deriveAgentId, formatTimestamp, generateEd25519KeyPair, isAcceptedMessageType, messageType, normalizePrincipal, prepareOutbound, resolveSenderKeys, signBody, verifyBody, type Wordmark } from "../../src/ink/index.ts";
import { validateHandshakeMessage } from "../../src/ink/profiles.ts";
import { hex, loadTestVectors } from "./conformance/fixtures.ts";

// Sample: the first upstream body-signature vector (an ink/0.1 envelope, tulpa mode), re-signed here.
const sample = loadTestVectors("body-signature").vectors[0].input.body as Record<string, unknown>;
const signer = generateEd25519KeyPair(new Uint8Array(32).fill(0x5a));

describe("wordmark parameter (svc vs tulpa)", () => {
  test("the upstream ink/0.1 sample verifies in tulpa mode only", () => {
    const pk = hex(loadTestVectors("body-signature").vectors[0].input.signerPublicKeyHex);
    expect(verifyBody(sample, pk, "tulpa")).toBe(true);
    expect(verifyBody(sample, pk, "svc")).toBe(false);
  });

  test("ink/0.1: each mode rejects the other's body signature", () => {
    const bySvc = signBody(sample, signer.secretKey, "svc");
    const byTulpa = signBody(sample, signer.secretKey, "tulpa");
    expect(bySvc.ok && byTulpa.ok).toBe(true);
    if (!bySvc.ok || !byTulpa.ok) return;
    expect(bySvc.signature).not.toBe(byTulpa.signature);
    expect(verifyBody(bySvc.body, signer.publicKey, "svc")).toBe(true);
    expect(verifyBody(bySvc.body, signer.publicKey, "tulpa")).toBe(false);
    expect(verifyBody(byTulpa.body, signer.publicKey, "tulpa")).toBe(true);
    expect(verifyBody(byTulpa.body, signer.publicKey, "svc")).toBe(false);
  });

  test("ink/0.2 uses ink/sign whatever the wordmark, so it verifies in both modes", () => {
    const v02 = { ...sample, protocol: "ink/0.2" };
    const bySvc = signBody(v02, signer.secretKey, "svc");
    const byTulpa = signBody(v02, signer.secretKey, "tulpa");
    if (!bySvc.ok || !byTulpa.ok) throw new Error("sign");
    expect(bySvc.signature).toBe(byTulpa.signature);
    for (const mode of ["svc", "tulpa"] as Wordmark[]) expect(verifyBody(bySvc.body, signer.publicKey, mode)).toBe(true);
    // Relabelling it ink/0.1 moves it to the wordmark domain, where it fails in both modes.
    const relabelled = { ...bySvc.body, protocol: "ink/0.1" };
    for (const mode of ["svc", "tulpa"] as Wordmark[]) expect(verifyBody(relabelled, signer.publicKey, mode)).toBe(false);
  });

  test("domains, agent ids and message types follow the wordmark", () => {
    expect(bodySignatureDomain("ink/0.1", "svc")).toBe("svc/sign\n");
    expect(bodySignatureDomain("ink/0.1", "tulpa")).toBe("tulpa/sign\n");
    expect(bodySignatureDomain(undefined, "svc")).toBe("svc/sign\n");
    expect(bodySignatureDomain("ink/0.2", "svc")).toBe("ink/sign\n");
    expect(deriveAgentId(signer.publicKey, "svc").startsWith("svc:z6Mk")).toBe(true);
    expect(messageType("encrypted", "svc")).toBe("network.svc.encrypted");
    expect(isAcceptedMessageType("network.ink.encrypted", "encrypted", "svc")).toBe(true);
    expect(isAcceptedMessageType("network.tulpa.encrypted", "encrypted", "svc")).toBe(false);
    expect(isAcceptedMessageType("network.svc.encrypted", "encrypted", "tulpa")).toBe(false);
    const challenge = { protocol: "ink/0.1", intentRef: "i", challengeType: "none", nonce: "n", timestamp: "2026-01-01T00:00:00Z" };
    expect(validateHandshakeMessage({ ...challenge, type: "network.svc.challenge" }, "svc").ok).toBe(true);
    expect(validateHandshakeMessage({ ...challenge, type: "network.svc.challenge" }, "tulpa").ok).toBe(false);
  });

  test("principals of all three spellings collapse in both modes", () => {
    const ids = ["svc", "tulpa", "ink"].map((p) => `${p}:${deriveAgentId(signer.publicKey, "svc").slice(4)}`);
    const principals = new Set(ids.map((id) => JSON.stringify(normalizePrincipal(id))));
    expect(principals.size).toBe(1);
  });

  test("end to end: an svc node accepts an svc sender's ink/0.1 intent; a tulpa node refuses it; ink/0.2 crosses", () => {
    const receiver = generateEd25519KeyPair(new Uint8Array(32).fill(0x6b));
    const now = Date.UTC(2026, 6, 1);
    const ts = formatTimestamp(now);
    const run = (protocol: "ink/0.1" | "ink/0.2", senderMode: Wordmark, receiverMode: Wordmark) => {
      const from = deriveAgentId(signer.publicKey, senderMode);
      const to = deriveAgentId(receiver.publicKey, receiverMode);
      const env = buildSignedEnvelope(
        { protocol, id: "m", correlationId: "c", createdAt: ts, from, to, intent: "ping", payload: {}, timestamp: ts, nonce: `nonce-${protocol}-${senderMode}-${receiverMode}` .replace(/[^A-Za-z0-9_-]/g, "_") },
        signer.secretKey,
        senderMode,
      );
      if (!env.ok) throw new Error(env.reason);
      const req = prepareOutbound({ envelope: env.envelope, recipient: { agentId: to, endpoint: "https://r.example/ink" }, secretKey: signer.secretKey, wordmark: senderMode });
      if (!req.ok) throw new Error(req.reason);
      const d = decideInbound(
        { body: req.bodyText, authorization: req.authorization, now },
        { ownAgentId: to, endpointPath: "/ink", wordmark: receiverMode, supportedIntents: ["ping"] },
        { keys: resolveSenderKeys({ agentId: from }), replay: { defer: true } },
      );
      return d.ok ? "accepted" : d.reason;
    };
    expect(run("ink/0.1", "svc", "svc")).toBe("accepted");
    expect(run("ink/0.1", "svc", "tulpa")).toBe("invalid_body_signature");
    expect(run("ink/0.1", "tulpa", "svc")).toBe("invalid_body_signature");
    expect(run("ink/0.2", "svc", "tulpa")).toBe("accepted");
    expect(run("ink/0.2", "tulpa", "svc")).toBe("accepted");
  });
});
