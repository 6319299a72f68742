import type { SignInDeps } from "../domain/owner/sign-in.ts";
import { DEVICE_COOKIE, DEVICE_TOKEN_TTL_SECONDS } from "../security/device-token.ts";
import { isSecureContext } from "./session-cookie.ts";

/**
 * The device cookie at the edge (security/device-token.ts; docs/decisions/owner-sign-in.md,
 * "Device cookies"): read from the sign-in requests, set by every successful sign-in and refresh.
 * Only sign-in reads it (Path=/auth), scripts never (HttpOnly), other sites never send it
 * (SameSite=Strict).
 */

/** The device id of a valid device cookie on the request, or null (absent, forged, expired). */
export function deviceOf(request: Request, signIn: Pick<SignInDeps, "devices">): string | null {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === DEVICE_COOKIE) return signIn.devices.verify(part.slice(at + 1).trim());
  }
  return null;
}

/** Sets (or renews, keeping the device's id) the device cookie, beside any other cookie the answer sets. */
export function renewDevice(headers: Record<string, unknown>, request: Request, signIn: Pick<SignInDeps, "devices" | "publicUrl">, newId: () => string): void {
  const secure = isSecureContext(request, signIn.publicUrl) ? "; Secure" : "";
  const cookie = `${DEVICE_COOKIE}=${signIn.devices.issue(deviceOf(request, signIn) ?? newId())}; Max-Age=${DEVICE_TOKEN_TTL_SECONDS}; Path=/auth; HttpOnly; SameSite=Strict${secure}`;
  const existing = headers["set-cookie"];
  headers["set-cookie"] = existing === undefined ? cookie : [...(Array.isArray(existing) ? existing : [existing]), cookie];
}
