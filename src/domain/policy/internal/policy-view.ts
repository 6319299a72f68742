import { type OwnerPolicy } from "../owner-policy.ts";

export interface PolicyView extends Omit<OwnerPolicy, "updatedAt"> {
  updatedAt: string | null;
}

export function policyView(p: OwnerPolicy): PolicyView {
  const { updatedAt, ...rest } = p;
  return { ...rest, updatedAt: updatedAt === null ? null : new Date(updatedAt).toISOString() };
}
