import { transaction } from "../../db/client.ts";
import { sha256Base64url } from "../../security/one-time-code.ts";
import { consumeRateLimit } from "../rate-limit/consume-rate-limit.ts";
import { enforce } from "./internal/enforce.ts";
import type { Ctx } from "../context.ts";
import { DomainError } from "../errors.ts";
import { invalidInput } from "../internal/errors.ts";
import { prepareCode, storeCode } from "./internal/code-store.ts";
import type { MailMessage } from "./mailer.ts";
import { CODE_TTL_MS, type SignInDeps } from "./sign-in.ts";
import { findOwnerEmail, hashedClient, hashedDevice, isEmailAddress, normalizeEmail } from "./internal/owner-email.ts";

/** Per address and client, durable (a restart does not reset it): 3 codes an hour, so one client cannot use up... */
export const SEND_PER_ADDRESS_AND_CLIENT = { limit: 3, windowMs: 60 * 60 * 1000 };
/** ...the address's ceiling, which bounds the codes a guesser can aim at and the mail the owner gets: 6 an hour. */
export const SEND_PER_ADDRESS = { limit: 6, windowMs: 60 * 60 * 1000 };
/** A device the owner signed in from (device cookie) is outside both, with 3 codes an hour of its own. */
export const SEND_PER_DEVICE = { limit: 3, windowMs: 60 * 60 * 1000 };

/**
 * `POST /auth/email/send`. Only the owner's address gets a code; every other address gets the
 * same answer after the same work (a code is made and hashed, the limits are counted in one
 * transaction) and nothing is stored or sent, so the answer does not tell who the owner is.
 * The mail leaves after the answer, off the request path, so its delivery time does not show
 * either. The code belongs to the client that asked (its own try budget; a later request from
 * another client does not retire it). A request refused by the per-client limit does not count
 * against the address's ceiling. A request from a device the owner signed in from before (`device`:
 * the id of a valid device cookie, checked at the edge) counts only against that device's own
 * limit, so strangers who hold the address at its ceiling do not deny the owner a code, and the
 * code belongs to the device (docs/decisions/owner-sign-in.md, "Device cookies").
 */
export function sendEmailCode(ctx: Ctx, input: { email: string; device?: string | null }, deps: Pick<SignInDeps, "codeKey" | "ownerEmail" | "mailer" | "publicUrl">): { sent: true; expiresIn: number } {
  if (ctx.actor.kind !== "public") throw new DomainError("forbidden", "sign-in codes are requested anonymously");
  const email = normalizeEmail(input.email);
  if (!isEmailAddress(email)) throw invalidInput("email: not a valid email address");
  const now = ctx.clock.now();
  const owner = findOwnerEmail(ctx.db, deps.ownerEmail);
  const isOwner = owner !== null && owner === email;
  const device = input.device ? hashedDevice(input.device) : null;
  const client = device ?? hashedClient(ctx.actor.ip);
  const prepared = prepareCode({ id: ctx.ids.next(), email, origin: "email", requester: client, now, codeKey: deps.codeKey });
  const decision = transaction(ctx.db, (tx) => {
    if (device) {
      const perDevice = consumeRateLimit(ctx, "email-send-device", sha256Base64url(`${email}\n${device}`), SEND_PER_DEVICE);
      if (perDevice.allowed && isOwner) storeCode(tx, prepared, now);
      return perDevice;
    }
    // The limiter keys are hashes: strangers' addresses are not kept in the database.
    const perClient = consumeRateLimit(ctx, "email-send-client", sha256Base64url(`${email}\n${client}`), SEND_PER_ADDRESS_AND_CLIENT);
    if (!perClient.allowed) return perClient;
    const result = consumeRateLimit(ctx, "email-send", sha256Base64url(email), SEND_PER_ADDRESS);
    if (result.allowed && isOwner) storeCode(tx, prepared, now);
    return result;
  });
  enforce(decision, device ? "sign-in codes for this device" : "sign-in codes for this address");
  if (isOwner) {
    const message = codeMessage(email, prepared.code, deps.publicUrl);
    setTimeout(() => {
      deps.mailer.send(message).catch((e: unknown) => ctx.log.error("sign-in code mail failed", { cause: e instanceof Error ? e.message : String(e) }));
    }, 0);
    ctx.log.info("sign-in code issued", { codeId: prepared.id, delivery: deps.mailer.kind });
  }
  return { sent: true, expiresIn: CODE_TTL_MS / 1000 };
}

function codeMessage(to: string, code: string, publicUrl: string): MailMessage {
  return {
    to,
    subject: "Your Kith sign-in code",
    text: [
      `Your one-time code to sign in to your Kith node at ${publicUrl}:`,
      "",
      `    ${code}`,
      "",
      "It expires in 10 minutes and works once. If you did not ask for it, ignore this message:",
      "nobody can sign in without the code.",
      "",
    ].join("\n"),
  };
}
