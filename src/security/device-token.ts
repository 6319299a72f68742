import { createHmac } from "node:crypto";
import { secretsEqual } from "./secret-box.ts";

/**
 * Device cookies (OWASP "Slow Down Online Guessing Attacks with Device Cookies"): a browser or app
 * that has signed the owner in carries `<deviceId>.<issued at, unix s>.<HMAC-SHA256>` in an HttpOnly
 * cookie. Only the node can make one, so a request that carries a valid one comes from a device the
 * owner used: it is exempt from the per-address limits strangers can exhaust and has limits of its
 * own (docs/decisions/owner-sign-in.md, "Device cookies").
 */
export const DEVICE_COOKIE = "kith_device";
/** Renewed at every sign-in and refresh; a device unused for this long is a new device again. */
export const DEVICE_TOKEN_TTL_SECONDS = 180 * 24 * 60 * 60;

const ID = /^[A-Za-z0-9_-]{1,64}$/;

export interface DeviceTokens {
  issue(deviceId: string): string;
  /** The device id of a token this node issued that has not expired, or null for anything else. */
  verify(token: string): string | null;
}

export function createDeviceTokens(options: { key: Uint8Array; now: () => number }): DeviceTokens {
  const mac = (deviceId: string, issuedAt: number) => createHmac("sha256", options.key).update(`kith-device/1\n${deviceId}\n${issuedAt}`).digest("base64url");
  return {
    issue(deviceId) {
      if (!ID.test(deviceId)) throw new Error("device id: 1-64 base64url characters");
      const issuedAt = Math.floor(options.now() / 1000);
      return `${deviceId}.${issuedAt}.${mac(deviceId, issuedAt)}`;
    },
    verify(token) {
      const [deviceId, issued, signature, extra] = token.split(".");
      if (extra !== undefined || !deviceId || !ID.test(deviceId) || !issued || !/^\d{1,12}$/.test(issued) || !signature) return null;
      const issuedAt = Number(issued);
      const age = Math.floor(options.now() / 1000) - issuedAt;
      if (age < -60 || age > DEVICE_TOKEN_TTL_SECONDS) return null;
      return secretsEqual(signature, mac(deviceId, issuedAt)) ? deviceId : null;
    },
  };
}
