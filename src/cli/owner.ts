import { closeDatabase } from "../db/client.ts";
import { systemClock } from "../clock.ts";
import { DomainError } from "../domain/errors.ts";
import { createUlidIds } from "../ids.ts";
import { readStoredSettings } from "../domain/node/read-stored-settings.ts";
import { issueOwnerCode } from "../domain/owner/issue-owner-code.ts";
import { checkOwnerCodeRequest } from "../domain/owner/check-owner-code-request.ts";
import { isEmailAddress, normalizeEmail } from "../domain/owner/internal/owner-email.ts";
import { createJsonLogger } from "../log.ts";
import { deriveKey } from "../security/node-secret.ts";
import { CliError, UsageError, type Command } from "./command.ts";
import { configFrom } from "./init.ts";
import { dataPaths } from "./paths.ts";
import { nodeSecret } from "./sign-in.ts";
import { requireNode } from "./data-dir.ts";
import { guardStorage, openStorage } from "./storage.ts";

export const ownerCommand: Command = {
  name: "owner",
  brief: "Print a one-time owner sign-in code, no mail needed (owner code).",
  summary:
    "owner code: issue a fresh one-time sign-in code for the owner's email and print it as the last line of stdout, " +
    "for POST /auth/email/verify (no mail needed). Works while the node runs. --email sets the owner email when none is " +
    "set yet; an existing one is never changed.",
  usage: "kith owner code [--data-dir D] [--email E]",
  positionals: true,
  options: {
    "data-dir": { type: "string", description: "Data directory (default ./kith-data, or KITH_DATA_DIR)", valueName: "dir" },
    email: { type: "string", description: "The owner's email, stored when none is set yet", valueName: "email" },
  },
  run(values, io, positionals) {
    const [sub, ...rest] = positionals;
    if (sub !== "code") throw new UsageError(sub ? `unknown owner command ${JSON.stringify(sub)} (code)` : "owner needs a command: code");
    if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);
    const pre = configFrom(values, io);
    if (typeof values.email === "string" && !isEmailAddress(normalizeEmail(values.email))) {
      throw new UsageError(`--email: ${JSON.stringify(values.email)} is not a valid email address`);
    }
    const paths = dataPaths(pre.dataDir);
    // a code is for an existing node: never create a database (or a secret) in a mistyped directory
    requireNode(paths);
    // warn: the log shares stdout, whose last line must be the code alone
    const log = createJsonLogger({ level: "warn" });
    return guardStorage(paths, () => {
      const db = openStorage(paths, { clock: systemClock, log });
      try {
        const config = configFrom(values, io, readStoredSettings(db));
        const ctx = { actor: { kind: "system", job: "owner-code" } as const, db, clock: systemClock, ids: createUlidIds(systemClock), log };
        const input = { email: values.email as string | undefined };
        // refused before the node secret is read: a refusal creates nothing (not even auth-secret)
        checkOwnerCodeRequest(ctx, input, { ownerEmail: config.ownerEmail });
        const secret = nodeSecret(paths);
        const issued = issueOwnerCode(ctx, input, { codeKey: deriveKey(secret, "owner-code"), ownerEmail: config.ownerEmail });
        if (issued.stored) io.err(`owner email set to ${issued.email}`);
        io.err(`one-time sign-in code for ${issued.email}, valid until ${new Date(issued.expiresAt).toISOString()}, single use:`);
        io.err(`  POST /auth/email/verify {"email":"${issued.email}","code":"<code>"}`);
        io.out(issued.code);
        return 0;
      } catch (e) {
        if (e instanceof DomainError) {
          if (e.code === "invalid_input") throw new UsageError(e.message);
          throw new CliError(e.message);
        }
        throw e;
      } finally {
        closeDatabase(db);
      }
    });
  },
};
