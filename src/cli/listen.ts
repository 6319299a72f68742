import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import type { NodeConfig } from "../config.ts";
import { CliError } from "./command.ts";

export interface TlsFiles {
  cert: string;
  key: string;
}

/**
 * KITH_TLS_CERT_FILE / KITH_TLS_KEY_FILE, read and checked before the server starts, so a wrong
 * file is named with its setting instead of surfacing as an OpenSSL internal error from listen.
 */
export function loadTls(config: Pick<NodeConfig, "tlsCertFile" | "tlsKeyFile">): TlsFiles | undefined {
  if (!config.tlsCertFile || !config.tlsKeyFile) return undefined;
  const cert = read("KITH_TLS_CERT_FILE", config.tlsCertFile);
  const key = read("KITH_TLS_KEY_FILE", config.tlsKeyFile);
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch {
    throw new CliError(`KITH_TLS_CERT_FILE ${config.tlsCertFile} is not a PEM certificate (-----BEGIN CERTIFICATE-----)`);
  }
  let privateKey: ReturnType<typeof createPrivateKey>;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new CliError(`KITH_TLS_KEY_FILE ${config.tlsKeyFile} is not an unencrypted PEM private key (-----BEGIN PRIVATE KEY-----)`);
  }
  if (!certificate.checkPrivateKey(privateKey)) {
    throw new CliError(`KITH_TLS_KEY_FILE ${config.tlsKeyFile} is not the key of the certificate in KITH_TLS_CERT_FILE ${config.tlsCertFile}`);
  }
  return { cert, key };
}

/**
 * KITH_TLS_CA_FILE, read and checked at start: one or more PEM certificates and nothing else. A
 * wrong file (a private key, /etc/passwd) used to be accepted and made every peer fetch fail later.
 */
export function loadCaFile(config: Pick<NodeConfig, "tlsCaFile">): string[] | undefined {
  if (!config.tlsCaFile) return undefined;
  const text = read("KITH_TLS_CA_FILE", config.tlsCaFile);
  const what = `KITH_TLS_CA_FILE ${config.tlsCaFile}`;
  const blocks = [...text.matchAll(/-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g)];
  const other = blocks.find((b) => b[1] !== "CERTIFICATE");
  if (other) throw new CliError(`${what} holds a ${other[1]} block: it must hold only the PEM CA certificates peers' certificates chain to (never a key)`);
  if (blocks.length === 0) throw new CliError(`${what} holds no PEM certificate (-----BEGIN CERTIFICATE-----): point it at the CA certificate(s) peers' certificates chain to`);
  blocks.forEach((b, n) => {
    try {
      new X509Certificate(b[0]);
    } catch {
      throw new CliError(`${what}: certificate ${n + 1} of ${blocks.length} is not a valid X.509 certificate`);
    }
  });
  return [text];
}

/** Bun.serve throws synchronously when it cannot bind: one line naming the address, the setting and what to do. */
export function listenError(e: unknown, host: string, port: number): CliError {
  const address = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  const code = (e as { code?: unknown } | null)?.code;
  const reason =
    code === "EADDRINUSE" ? "the port is in use (choose another with --port or KITH_PORT)"
    : code === "EACCES" ? "permission denied (ports below 1024 need privileges; choose another with --port or KITH_PORT)"
    : code === "EADDRNOTAVAIL" ? "no such address on this machine (choose another with --host or KITH_HOST)"
    : code === "EINVAL" || code === "ENOENT" || code === "ENOTFOUND" || (typeof code === "string" && code.startsWith("EAI_")) ?
      `--host / KITH_HOST ${JSON.stringify(host)} is not an address of this machine nor a name that resolves to one (e.g. 127.0.0.1, 0.0.0.0, ::1)`
    : typeof code === "string" && code.startsWith("ERR_OSSL") ? `TLS setup failed (KITH_TLS_CERT_FILE / KITH_TLS_KEY_FILE): ${(e as Error).message}`
    : e instanceof Error ? e.message : String(e);
  return new CliError(`cannot listen on ${address}: ${reason}`);
}

function read(setting: string, path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    throw new CliError(`${setting} ${path} cannot be read`);
  }
}
