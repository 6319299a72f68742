import { createHmac } from "node:crypto";

/** Independent keys for independent uses (key separation): HMAC-SHA256(secret, "kith/<purpose>"). */
export function deriveKey(secret: Uint8Array, purpose: "owner-jwt" | "owner-code" | "owner-refresh" | "owner-device"): Uint8Array {
  return new Uint8Array(createHmac("sha256", secret).update(`kith/${purpose}`).digest());
}
