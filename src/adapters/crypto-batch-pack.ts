// The wire form of one batch between the serving thread and a crypto-batch worker: every call's
// bytes in one buffer, transferred rather than cloned (structured cloning of a few objects and
// arrays per call is what made one-call messages cost the serving thread more than verifying).
//   verify: u32 message length, 32-byte public key, 64-byte signature, message
//   sign:   u32 message length, 32-byte seed, message
// The reply is one byte per verify (1: valid) and 64 bytes per signature.
import { nativeStrictVerifier } from "../security/ed25519-native.ts";
import type { VerifyCall } from "../security/preverify.ts";

export interface SignCall {
  message: Uint8Array;
  secretKey: Uint8Array;
}
export interface PackedRequest {
  id: number;
  verifies: number;
  signs: number;
  data: Uint8Array;
}
export interface PackedResult {
  id: number;
  verdicts: Uint8Array;
  signatures: Uint8Array;
}
/** What a worker posts back: the batch's results, its thread's CPU time so far (µs) and when it ran the batch (ms since the epoch), for benchmarks. */
export interface PackedReply extends PackedResult {
  cpuUs: number;
  startedAt: number;
  endedAt: number;
}

/** Only calls of these sizes are packed; any other is answered on the calling thread. */
export const packable = {
  verify: (c: VerifyCall) => c.publicKey.length === 32 && c.signature.length === 64,
  sign: (c: SignCall) => c.secretKey.length === 32,
};

export function pack(id: number, verifies: VerifyCall[], signs: SignCall[]): PackedRequest {
  let size = 0;
  for (const c of verifies) size += 4 + 96 + c.message.length;
  for (const c of signs) size += 4 + 32 + c.message.length;
  const data = new Uint8Array(size);
  const view = new DataView(data.buffer);
  let at = 0;
  const put = (bytes: Uint8Array) => {
    data.set(bytes, at);
    at += bytes.length;
  };
  for (const c of verifies) {
    view.setUint32(at, c.message.length);
    at += 4;
    put(c.publicKey);
    put(c.signature);
    put(c.message);
  }
  for (const c of signs) {
    view.setUint32(at, c.message.length);
    at += 4;
    put(c.secretKey);
    put(c.message);
  }
  return { id, verifies: verifies.length, signs: signs.length, data };
}

/** Runs a packed batch (on a worker), then zeroes it: it carried the agent's key. */
export function runPacked(request: PackedRequest, sign: (message: Uint8Array, secretKey: Uint8Array) => Uint8Array): PackedResult {
  const { data } = request;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const verdicts = new Uint8Array(request.verifies);
  const signatures = new Uint8Array(64 * request.signs);
  let at = 0;
  for (let i = 0; i < request.verifies; i++) {
    const length = view.getUint32(at);
    const publicKey = data.subarray(at + 4, at + 36);
    const signature = data.subarray(at + 36, at + 100);
    const message = data.subarray(at + 100, at + 100 + length);
    verdicts[i] = nativeStrictVerifier(publicKey, message, signature) ? 1 : 0;
    at += 100 + length;
  }
  for (let i = 0; i < request.signs; i++) {
    const length = view.getUint32(at);
    signatures.set(sign(data.subarray(at + 36, at + 36 + length), data.subarray(at + 4, at + 36)), 64 * i);
    at += 36 + length;
  }
  data.fill(0);
  return { id: request.id, verdicts, signatures };
}
