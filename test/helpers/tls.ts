import { readFileSync } from "node:fs";
import { join } from "node:path";

const DIR = join(import.meta.dir, "../fixtures/tls");
export const TLS_CA_FILE = join(DIR, "ca.crt");
export const TLS_CERT_FILE = join(DIR, "localhost.crt");
export const TLS_KEY_FILE = join(DIR, "localhost.key");
export const testCa = () => readFileSync(TLS_CA_FILE, "utf8");
export const testTls = () => ({ cert: readFileSync(TLS_CERT_FILE, "utf8"), key: readFileSync(TLS_KEY_FILE, "utf8") });
