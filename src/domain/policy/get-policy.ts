import { eq } from "drizzle-orm";
import type { Db, Tx } from "../../db/client.ts";
import { ownerPolicy } from "../../db/schema/index.ts";
import { policyFromRow } from "./policy-from-row.ts";
import type { OwnerPolicy } from "./owner-policy.ts";

export function getPolicy(db: Db | Tx): OwnerPolicy {
  return policyFromRow(db.select().from(ownerPolicy).where(eq(ownerPolicy.id, 1)).get());
}
