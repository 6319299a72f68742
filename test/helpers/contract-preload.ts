import { afterEach } from "bun:test";
import { flushExchangeLog } from "./exchange-log.ts";
import { suiteContract, takeExchanges } from "./openapi-contract.ts";

// Preloaded for every test file (bunfig.toml): after each test, the requests its nodes answered
// are checked against the node's OpenAPI document (see openapi-contract.ts). A mismatch fails
// the test that made the request.
afterEach(async () => {
  await flushExchangeLog();
  const exchanges = takeExchanges();
  const contract = suiteContract();
  if (!contract || exchanges.length === 0) return;
  const checker = await contract;
  const problems = [...new Set(exchanges.flatMap((x) => checker.check(x)))];
  if (problems.length > 0) {
    throw new Error(`the OpenAPI document does not describe what the node did:\n  ${problems.slice(0, 20).join("\n  ")}${problems.length > 20 ? `\n  … and ${problems.length - 20} more` : ""}`);
  }
});
