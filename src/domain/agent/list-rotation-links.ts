import { asc } from "drizzle-orm";
import type { Db, Tx } from "../../db/client.ts";
import { agentRotationLinks } from "../../db/schema/index.ts";
import { type RotationLink } from "../../ink/index.ts";

/** The published chain, oldest link first (INK §13 `rotationChain`). */
export function listRotationLinks(db: Db | Tx): RotationLink[] {
  return db
    .select({ linkJson: agentRotationLinks.linkJson })
    .from(agentRotationLinks)
    .orderBy(asc(agentRotationLinks.keySetVersion))
    .all()
    .map((r) => JSON.parse(r.linkJson) as RotationLink);
}
