import { expect, test } from "bun:test";
import { policyFromRow } from "../../src/domain/policy/policy-from-row.ts";

const row = {
  id: 1,
  maxAutonomyLevel: "draft_only" as const,
  trustedDidsJson: "[]",
  maxInboundRate: 10,
  acceptForeignAgents: 1,
  allowedMethodsJson: JSON.stringify(["tulpa:"]),
  allowedHostsJson: "[]",
  allowedDidsJson: "[]",
  blockedDidsJson: JSON.stringify(["svc:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"]),
  updatedAt: 1_000,
};

test("the policy row read twice per intent is parsed once: an equal row gives the same frozen policy", () => {
  const first = policyFromRow({ ...row });
  expect(policyFromRow({ ...row })).toBe(first);
  expect(first.blockedDids).toEqual(["key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"]);
  expect(first.allowedMethods).toEqual(["key:"]);
  expect(Object.isFrozen(first) && Object.isFrozen(first.blockedDids) && Object.isFrozen(first.allowedMethods)).toBe(true);
});

test("a change in any column of the row gives the policy of the new row (an owner's edit counts from the next request)", () => {
  const changes: Array<[keyof typeof row, unknown, (p: ReturnType<typeof policyFromRow>) => unknown, unknown]> = [
    ["maxAutonomyLevel", "full", (p) => p.maxAutonomyLevel, "full"],
    ["trustedDidsJson", JSON.stringify(["did:web:friend.example"]), (p) => p.trustedDids, ["did:web:friend.example"]],
    ["maxInboundRate", 11, (p) => p.maxInboundRate, 11],
    ["acceptForeignAgents", 0, (p) => p.acceptForeignAgents, false],
    ["allowedMethodsJson", JSON.stringify(["did:web"]), (p) => p.allowedMethods, ["did:web"]],
    ["allowedHostsJson", JSON.stringify(["example.com"]), (p) => p.allowedHosts, ["example.com"]],
    ["allowedDidsJson", JSON.stringify(["did:web:friend.example"]), (p) => p.allowedDids, ["did:web:friend.example"]],
    ["blockedDidsJson", "[]", (p) => p.blockedDids, []],
    ["updatedAt", 2_000, (p) => p.updatedAt, 2_000],
  ];
  for (const [column, value, read, expected] of changes) {
    policyFromRow({ ...row });
    expect({ column, value: read(policyFromRow({ ...row, [column]: value })) }).toEqual({ column, value: expected });
    expect({ column, value: read(policyFromRow({ ...row })) }).toEqual({ column, value: read(policyFromRow({ ...row, id: 1 })) });
  }
  expect(policyFromRow(null).maxAutonomyLevel).toBe("draft_only");
});
