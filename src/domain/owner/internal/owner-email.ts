import { eq } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { settings } from "../../../db/schema/index.ts";
import { clientKey } from "../../../security/client-key.ts";
import { sha256Base64url } from "../../../security/one-time-code.ts";
import { EMAIL_PATTERN } from "../sign-in.ts";

export function normalizeEmail(raw: string): string {
  return raw.trim().toLowerCase();
}

export function isEmailAddress(value: string): boolean {
  return value.length <= 254 && EMAIL_PATTERN.test(value);
}

/** The anonymous caller's client key (IPv4, or IPv6 /64), hashed: how sign-in limits and code budgets name a client. */
export function hashedClient(ip: string | null): string {
  return sha256Base64url(`client\n${clientKey(ip)}`);
}

/** A device the owner signed in from (the id of a valid device cookie), as a requester and limiter key. */
export function hashedDevice(deviceId: string): string {
  return sha256Base64url(`device\n${deviceId}`);
}

/** The owner's email: the configured one, else the one `kith init` or `kith owner code --email` stored. */
export function findOwnerEmail(db: Db, configured: string | null): string | null {
  if (configured) return configured;
  return db.select().from(settings).where(eq(settings.key, "owner_email")).get()?.value ?? null;
}
