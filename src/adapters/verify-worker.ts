// Worker entry of the Ed25519 verify pool (verify-pool.ts). It runs the very verifier the main
// thread would (nativeStrictVerifier: BoringSSL behind the INK core's strict pre-checks), so a
// verdict computed here is the verdict the main thread would have computed. scripts/build.ts
// compiles this file as a second entry point so that the single-file binary carries it.
import { nativeStrictVerifier } from "../security/ed25519-native.ts";
import type { VerifyCall } from "../security/preverify.ts";
import type { VerifyReply, VerifyRequest } from "./verify-pool.ts";

declare const self: Worker;

self.onmessage = (event: MessageEvent<VerifyRequest>) => {
  const { id, calls } = event.data;
  const verdicts = calls.map((c: VerifyCall) => nativeStrictVerifier(c.publicKey, c.message, c.signature));
  self.postMessage({ id, verdicts } satisfies VerifyReply);
};
