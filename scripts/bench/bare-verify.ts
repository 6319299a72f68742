// The baseline of the benchmarks: bare native Ed25519 verifies per second of one 1.5 KB message,
// five samples of 0.4 s, printed on one line. The benches run it pinned to the node's core
// (`bareVerifySamples`), before and after what they measure.
import { generateKeyPairSync, sign, verify } from "node:crypto";

export function bareVerifySamples(pin: (cmd: string[]) => string[]): number[] {
  const out = Bun.spawnSync(pin([process.execPath, import.meta.path]), { stdout: "pipe" }).stdout.toString().trim();
  return out.split(" ").map(Number);
}

if (import.meta.main) {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const msg = Buffer.alloc(1500, 7);
  const sig = sign(null, msg, privateKey);
  const rates: number[] = [];
  for (let r = 0; r < 5; r++) {
    let n = 0;
    const t = performance.now();
    while (performance.now() - t < 400) {
      verify(null, msg, publicKey, sig);
      n++;
    }
    rates.push(Math.round(n / ((performance.now() - t) / 1000)));
  }
  console.log(rates.join(" "));
}
