import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A throw-away CA and a `localhost` certificate valid for `days` (openssl), for tests of what a
 * certificate's expiry does. Returns PEM texts and the CA file's path.
 */
export function makeCertificate(days: number): { caFile: string; cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), "kith-cert-"));
  const run = (args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  run(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-days", "30", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-subj", "/CN=Doctor Test CA", "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"]);
  run(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "leaf.key", "-out", "leaf.csr", "-subj", "/CN=localhost"]);
  writeFileSync(join(dir, "ext.cnf"), "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n");
  run(["x509", "-req", "-in", "leaf.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", String(days), "-out", "leaf.crt", "-extfile", "ext.cnf"]);
  return { caFile: join(dir, "ca.crt"), cert: readFileSync(join(dir, "leaf.crt"), "utf8"), key: readFileSync(join(dir, "leaf.key"), "utf8") };
}

/**
 * A minimal SMTP server on loopback (RFC 5321 greeting, EHLO, AUTH PLAIN, QUIT): enough for a
 * client's verify() to connect, greet and log in. Only `user`/`pass` authenticate.
 */
export async function startFakeSmtp(user: string, pass: string): Promise<{ port: number; stop(): void }> {
  const server: Server = createServer((socket) => {
    socket.write("220 fake.test ESMTP\r\n");
    let buffer = "";
    socket.on("data", (chunk) => {
      buffer += chunk.toString("utf8");
      let i: number;
      while ((i = buffer.indexOf("\r\n")) >= 0) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 2);
        const verb = line.split(" ")[0]!.toUpperCase();
        if (verb === "EHLO") socket.write("250-fake.test\r\n250 AUTH PLAIN\r\n");
        else if (verb === "AUTH") {
          const given = Buffer.from(line.split(" ")[2] ?? "", "base64").toString("utf8");
          socket.write(given === `\0${user}\0${pass}` ? "235 2.7.0 accepted\r\n" : "535 5.7.8 authentication failed\r\n");
        } else if (verb === "QUIT") socket.end("221 bye\r\n");
        else socket.write("250 ok\r\n");
      }
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { port: (server.address() as { port: number }).port, stop: () => server.close() };
}

/** A loopback port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}
