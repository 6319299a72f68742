import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { packageRelease } from "../../scripts/build.ts";
import { ROOT } from "../helpers/process.ts";

// Spawns tar, sha256sum and systemd-analyze: a process test.
setDefaultTimeout(60_000);

const work = mkdtempSync(join(tmpdir(), "kith-release-test-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const run = (cmd: string[], cwd = work) => {
  const p = Bun.spawnSync(cmd, { cwd, stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
};

test("release archives: one per arch with kith (0755, root), README, unit and Containerfile; SHA256SUMS checks with sha256sum -c; the same input gives the same bytes", () => {
  const bins = (["x64", "arm64"] as const).map((arch) => {
    const file = join(work, `fake-${arch}`);
    writeFileSync(file, `#!/bin/sh\necho kith-${arch}\n`);
    return { arch, file };
  });
  const out = join(work, "dist");
  run(["mkdir", "-p", out]);
  const archives = packageRelease(bins, "9.9.9", out);
  expect(archives.map((a) => a.slice(out.length + 1))).toEqual(["kith-9.9.9-linux-x64.tar.gz", "kith-9.9.9-linux-arm64.tar.gz"]);
  const check = run(["sha256sum", "-c", "SHA256SUMS"], out);
  expect({ code: check.code, out: check.out }).toEqual({ code: 0, out: "kith-9.9.9-linux-x64.tar.gz: OK\nkith-9.9.9-linux-arm64.tar.gz: OK\n" });
  const listing = run(["tar", "-tvzf", archives[0]!]).out.trim().split("\n");
  expect(listing.find((l) => l.endsWith("kith-9.9.9-linux-x64/kith"))).toMatch(/^-rwxr-xr-x 0\/0 /);
  expect(listing.map((l) => l.split(/\s+/).at(-1)).sort()).toEqual(["kith-9.9.9-linux-x64/", "kith-9.9.9-linux-x64/Containerfile", "kith-9.9.9-linux-x64/README.md", "kith-9.9.9-linux-x64/kith", "kith-9.9.9-linux-x64/kith.service"]);
  run(["tar", "-xzf", archives[1]!]);
  expect(run([join(work, "kith-9.9.9-linux-arm64/kith")]).out).toBe("kith-arm64\n");
  const first = readFileSync(archives[0]!);
  packageRelease(bins, "9.9.9", out);
  expect(readFileSync(archives[0]!).equals(first)).toBe(true);
  // a tampered archive fails the check
  writeFileSync(archives[1]!, Buffer.concat([readFileSync(archives[1]!), Buffer.from("x")]));
  expect(run(["sha256sum", "-c", "SHA256SUMS"], out).code).not.toBe(0);
});

test.skipIf(!Bun.which("systemd-analyze"))("the systemd unit passes systemd-analyze verify (and the check catches a broken unit)", () => {
  const bin = join(work, "kith-bin");
  writeFileSync(bin, "#!/bin/sh\n");
  chmodSync(bin, 0o755);
  const unit = readFileSync(join(ROOT, "scripts/kith.service"), "utf8").replaceAll("/usr/local/bin/kith", bin);
  writeFileSync(join(work, "kith.service"), unit);
  const ok = run(["systemd-analyze", "verify", join(work, "kith.service")]);
  expect({ code: ok.code, err: ok.err }).toEqual({ code: 0, err: "" });
  writeFileSync(join(work, "broken.service"), unit.replace(/^ExecStart=.*$/m, "ExecStart=kith-not-absolute serve"));
  expect(run(["systemd-analyze", "verify", join(work, "broken.service")]).code).not.toBe(0);
});

test("the Containerfile runs the release's kith as a fixed non-root uid, with the data directory as the volume", () => {
  const text = readFileSync(join(ROOT, "Containerfile"), "utf8");
  const instructions = text.replace(/\\\n/g, " ").split("\n").filter((l) => l.trim() && !l.trim().startsWith("#"));
  const keywords = new Set(["FROM", "RUN", "COPY", "ENV", "VOLUME", "EXPOSE", "USER", "WORKDIR", "STOPSIGNAL", "ENTRYPOINT", "CMD"]);
  for (const line of instructions) expect(keywords.has(line.split(/\s+/)[0]!)).toBe(true);
  const find = (k: string) => instructions.find((l) => l.startsWith(`${k} `))!.slice(k.length + 1).trim();
  expect(find("USER")).toBe("10001:10001");
  expect(find("RUN")).toContain("--uid 10001");
  expect(find("RUN")).toContain("chown 10001:10001 /data");
  expect(find("VOLUME")).toBe("/data");
  expect(find("ENV")).toContain("KITH_DATA_DIR=/data");
  expect(find("COPY")).toBe("--chmod=0755 kith /usr/local/bin/kith"); // `kith` as in the release archive
  expect(JSON.parse(find("ENTRYPOINT"))).toEqual(["/usr/local/bin/kith"]);
  expect(JSON.parse(find("CMD"))).toEqual(["serve"]);
  // USER comes after the steps that need root
  expect(instructions.findIndex((l) => l.startsWith("USER "))).toBeGreaterThan(instructions.findIndex((l) => l.startsWith("COPY ")));
});
