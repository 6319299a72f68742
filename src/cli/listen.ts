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
