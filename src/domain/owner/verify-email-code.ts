import { transaction } from "../../db/client.ts";
import { normalizeCode } from "../../security/one-time-code.ts";
import { consumeRateLimit } from "../rate-limit/consume-rate-limit.ts";
import { enforce } from "./internal/enforce.ts";
import type { Ctx } from "../context.ts";
import { DomainError } from "../errors.ts";
import { invalidInput } from "../internal/errors.ts";
import { tryCode } from "./internal/code-store.ts";
import { type SignInDeps, type TokenPair } from "./sign-in.ts";
import { findOwnerEmail, hashedClient, hashedDevice, normalizeEmail } from "./internal/owner-email.ts";
import { startSession } from "./internal/start-session.ts";

export const INVALID_CODE = "the code is wrong, expired or already used";
/**
 * Per client (IPv4, or IPv6 /64), durable. There is no per-address limit: counting a stranger's
 * guesses against the owner's address is what let anyone lock the owner out (issue 12). Guessing
 * is bounded per code instead (internal/code-store.ts, docs/decisions/owner-sign-in.md).
 */
export const VERIFY_PER_CLIENT = { limit: 30, windowMs: 60 * 60 * 1000 };
/** A device the owner signed in from counts its own attempts instead (strangers on its network do not spend them). */
export const VERIFY_PER_DEVICE = { limit: 30, windowMs: 60 * 60 * 1000 };

/**
 * `POST /auth/email/verify`: the owner's address and one of its live codes give a TokenPair. A
 * wrong code counts a try against the codes it was checked against; wrong, expired, used,
 * exhausted and non-owner all get the same answer. Every attempt, for any address, writes its
 * per-client count in the same transaction, so an owner's failed try (which also counts against
 * the code) costs the same commit as a stranger's and the timing does not single out the owner's
 * address. From a device the owner signed in from before (`device`, a valid device cookie's id) the
 * attempt counts against that device instead of its network, and is the requester's own try on a
 * code the device asked for.
 */
export async function verifyEmailCode(ctx: Ctx, input: { email: string; code: string; device?: string | null }, deps: Pick<SignInDeps, "codeKey" | "ownerEmail" | "tokens">): Promise<TokenPair> {
  if (ctx.actor.kind !== "public") throw new DomainError("forbidden", "sign-in is anonymous");
  const email = normalizeEmail(input.email);
  const candidate = normalizeCode(input.code);
  const owner = findOwnerEmail(ctx.db, deps.ownerEmail);
  const device = input.device ? hashedDevice(input.device) : null;
  const client = device ?? hashedClient(ctx.actor.ip);
  const now = ctx.clock.now();
  const outcome = transaction(ctx.db, (tx) => {
    const limit = device ? consumeRateLimit(ctx, "email-verify-device", device, VERIFY_PER_DEVICE) : consumeRateLimit(ctx, "email-verify-client", client, VERIFY_PER_CLIENT);
    if (!limit.allowed) return { limit, ok: false };
    return { limit, ok: owner !== null && owner === email && tryCode(tx, { email, candidate, client, now, codeKey: deps.codeKey }) };
  });
  enforce(outcome.limit, device ? "sign-in attempts from this device" : "sign-in attempts from this network address");
  if (!outcome.ok) throw invalidInput(INVALID_CODE);
  return startSession(ctx, deps, "email");
}
