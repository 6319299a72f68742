import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { EMAIL_PATTERN } from "./domain/owner/sign-in.ts";
import { LOG_LEVELS, type LogLevel } from "./log.ts";
import { assertPrivateMode, KeyFileError } from "./adapters/key-file.ts";
import { atprotoOwner, bindHost, bool, ConfigError, directoryUrls, email, issuerUrl, metricsToken, nonEmpty, oneOf, port, publicUrl, readableFile, redirectUris, revalidateSeconds, serviceUrl, smtpUrl, verifyWorkers } from "./config-values.ts";

export { EMAIL_PATTERN };
export { ConfigError, publicUrl };

/**
 * Every setting of the node, in one table: its flag, its `KITH_*` variable, whether `kith init`
 * stores it, its default and its rule. Precedence: flag > environment > stored by init > default.
 * The README's configuration table is checked against this list by a test.
 */
export interface SettingSpec {
  key: keyof NodeConfig;
  flag?: string;
  env: string;
  stored?: string;
  default: string;
  description: string;
  parse: (raw: string, name: string) => unknown;
  /** Secret values are never echoed back in an error message. */
  secret?: boolean;
}

export interface NodeConfig {
  dataDir: string;
  port: number;
  host: string;
  publicUrl: string;
  wordmark: "svc" | "tulpa";
  logLevel: LogLevel;
  passphrase: string | null;
  ownerEmail: string | null;
  trustProxy: boolean;
  allowPrivatePeers: boolean;
  tlsCertFile: string | null;
  tlsKeyFile: string | null;
  tlsCaFile: string | null;
  smtpUrl: string | null;
  smtpFrom: string | null;
  googleClientId: string | null;
  googleClientSecret: string | null;
  googleSubject: string | null;
  googleIssuer: string;
  appleClientId: string | null;
  appleTeamId: string | null;
  appleKeyId: string | null;
  applePrivateKeyFile: string | null;
  appleSubject: string | null;
  appleIssuer: string;
  atprotoOwner: string | null;
  atprotoPlcUrl: string;
  atprotoHandleResolver: string | null;
  oauthRedirectUris: string[];
  llmUrl: string | null;
  llmModel: string | null;
  llmApiKey: string | null;
  transcribeUrl: string | null;
  transcribeModel: string;
  transcribeApiKey: string | null;
  directories: string[];
  directoryRevalidateSeconds: number;
  /** Threads that verify inbound signatures; null: one per core the process may use, besides its own. */
  verifyWorkers: number | null;
  mailboxUrl: string | null;
  metricsToken: string | null;
  logFormat: "json" | "pretty" | null;
}

export const GOOGLE_ISSUER = "https://accounts.google.com";
export const APPLE_ISSUER = "https://appleid.apple.com";
export const PLC_DIRECTORY = "https://plc.directory";

export const DEFAULT_PORT = 8787;
export const DEFAULT_REVALIDATE_SECONDS = 6 * 60 * 60;

export const SETTINGS: SettingSpec[] = [
  { key: "dataDir", flag: "data-dir", env: "KITH_DATA_DIR", default: "./kith-data", description: "Data directory: kith.db, agent-key.json, auth-secret, snapshots.", parse: nonEmpty },
  { key: "port", flag: "port", env: "KITH_PORT", default: String(DEFAULT_PORT), description: "TCP port to listen on (0 picks a free port).", parse: port },
  { key: "host", flag: "host", env: "KITH_HOST", default: "127.0.0.1", description: "Address to bind. Keep loopback behind a reverse proxy; 0.0.0.0 to listen on all interfaces.", parse: bindHost },
  { key: "publicUrl", flag: "public-url", env: "KITH_PUBLIC_URL", stored: "public_url", default: `http://localhost:<port>`, description: "Public base URL peers use (https in production); the card's endpoint is built from it.", parse: publicUrl },
  { key: "wordmark", flag: "wordmark", env: "KITH_WORDMARK", stored: "wordmark", default: "svc", description: "Product word on the wire: svc (agent ids svc:z…) or tulpa (wire-compatible with public INK peers).", parse: oneOf(["svc", "tulpa"]) },
  { key: "logLevel", flag: "log-level", env: "KITH_LOG_LEVEL", default: "info", description: "debug, info, warn, error or silent.", parse: oneOf(LOG_LEVELS) },
  { key: "passphrase", flag: "passphrase-file", env: "KITH_KEY_PASSPHRASE", default: "(none)", description: "Passphrase that encrypts agent-key.json (scrypt + AES-256-GCM). The flag names a file holding it.", parse: nonEmpty, secret: true },
  { key: "ownerEmail", flag: "owner-email", env: "KITH_OWNER_EMAIL", stored: "owner_email", default: "(none)", description: "The owner's email: the only address that can sign in with an emailed code.", parse: email },
  { key: "trustProxy", env: "KITH_TRUST_PROXY", default: "false", description: "Take client IPs from X-Forwarded-For (set only behind your own reverse proxy).", parse: bool },
  { key: "allowPrivatePeers", env: "KITH_ALLOW_PRIVATE_PEERS", default: "false", description: "Allow peers on private/loopback addresses (tests, home LAN). Lifts only the address rule of the SSRF gate.", parse: bool },
  { key: "tlsCertFile", env: "KITH_TLS_CERT_FILE", default: "(none)", description: "Serve HTTPS directly with this PEM certificate (chain) instead of behind a TLS proxy. Needs KITH_TLS_KEY_FILE.", parse: readableFile },
  { key: "tlsKeyFile", env: "KITH_TLS_KEY_FILE", default: "(none)", description: "PEM private key for KITH_TLS_CERT_FILE.", parse: readableFile },
  { key: "tlsCaFile", env: "KITH_TLS_CA_FILE", default: "(none)", description: "Extra PEM CA certificate(s) trusted for outbound connections to peers, besides the system roots.", parse: readableFile },
  { key: "smtpUrl", env: "KITH_SMTP_URL", default: "(none)", description: "SMTP relay for sign-in codes: smtp://user:pass@host:587 (STARTTLS required except on loopback) or smtps://user:pass@host:465. Without it the mail, code included, goes to the log.", parse: smtpUrl, secret: true },
  { key: "smtpFrom", env: "KITH_SMTP_FROM", default: "kith@<public host>", description: "Sender address of sign-in mail.", parse: nonEmpty },
  { key: "googleClientId", env: "KITH_GOOGLE_CLIENT_ID", default: "(none)", description: "Google OAuth client id; with the secret, enables sign-in with Google.", parse: nonEmpty },
  { key: "googleClientSecret", env: "KITH_GOOGLE_CLIENT_SECRET", default: "(none)", description: "Google OAuth client secret.", parse: nonEmpty, secret: true },
  { key: "googleSubject", env: "KITH_GOOGLE_SUBJECT", default: "(none)", description: "The owner's Google account id (`sub`): when set, the only Google account that can sign in. Without it, a Google account whose verified email is the owner email is the owner.", parse: nonEmpty },
  { key: "googleIssuer", env: "KITH_GOOGLE_ISSUER", default: GOOGLE_ISSUER, description: "Google's OpenID issuer; endpoints come from its discovery document (only tests change it).", parse: issuerUrl },
  { key: "appleClientId", env: "KITH_APPLE_CLIENT_ID", default: "(none)", description: "Apple Services ID; with team id, key id and key file, enables Sign in with Apple.", parse: nonEmpty },
  { key: "appleTeamId", env: "KITH_APPLE_TEAM_ID", default: "(none)", description: "Apple developer team id (the client secret's issuer).", parse: nonEmpty },
  { key: "appleKeyId", env: "KITH_APPLE_KEY_ID", default: "(none)", description: "Key id of the Sign in with Apple key.", parse: nonEmpty },
  { key: "applePrivateKeyFile", env: "KITH_APPLE_PRIVATE_KEY_FILE", default: "(none)", description: "Path of the Sign in with Apple key (.p8, PKCS#8 PEM).", parse: nonEmpty },
  { key: "appleSubject", env: "KITH_APPLE_SUBJECT", default: "(none)", description: "The owner's Apple user id (`sub`): when set, the only Apple ID that can sign in. Without it, an Apple account whose verified email is the owner email is the owner.", parse: nonEmpty },
  { key: "appleIssuer", env: "KITH_APPLE_ISSUER", default: APPLE_ISSUER, description: "Apple's OpenID issuer; endpoints come from its discovery document (only tests change it).", parse: issuerUrl },
  { key: "atprotoOwner", env: "KITH_ATPROTO_OWNER", default: "(none)", description: "The owner's AT Protocol identity, a DID (did:plc:…, did:web:…) or a handle; enables AT Protocol sign-in.", parse: atprotoOwner },
  { key: "atprotoPlcUrl", env: "KITH_ATPROTO_PLC_URL", default: PLC_DIRECTORY, description: "PLC directory that resolves did:plc identities.", parse: issuerUrl },
  { key: "atprotoHandleResolver", env: "KITH_ATPROTO_HANDLE_RESOLVER", default: "(DNS TXT, then HTTPS)", description: "A service answering com.atproto.identity.resolveHandle, used instead of DNS/HTTPS handle resolution.", parse: issuerUrl },
  { key: "oauthRedirectUris", env: "KITH_OAUTH_REDIRECT_URIS", default: "(none)", description: "Comma-separated allowlist of redirect URIs for Google, Apple and AT Protocol sign-in (register the same ones at the provider).", parse: redirectUris },
  { key: "llmUrl", env: "KITH_LLM_URL", default: "(none)", description: "Base URL of an OpenAI-compatible API for drafts and summaries (e.g. http://127.0.0.1:11434/v1 for Ollama); /v1 is added unless present. Without it a deterministic built-in answers.", parse: serviceUrl },
  { key: "llmModel", env: "KITH_LLM_MODEL", default: "(none)", description: "Chat model name at KITH_LLM_URL (required with it), e.g. llama3.1.", parse: nonEmpty },
  { key: "llmApiKey", env: "KITH_LLM_API_KEY", default: "(none)", description: "Bearer key for KITH_LLM_URL, if it needs one.", parse: nonEmpty, secret: true },
  { key: "transcribeUrl", env: "KITH_TRANSCRIBE_URL", default: "(none)", description: "Base URL of an OpenAI-compatible API serving /v1/audio/transcriptions (/v1 is added unless present). Without it transcription answers 503.", parse: serviceUrl },
  { key: "transcribeModel", env: "KITH_TRANSCRIBE_MODEL", default: "whisper-1", description: "Transcription model name at KITH_TRANSCRIBE_URL.", parse: nonEmpty },
  { key: "transcribeApiKey", env: "KITH_TRANSCRIBE_API_KEY", default: "(none)", description: "Bearer key for KITH_TRANSCRIBE_URL, if it needs one.", parse: nonEmpty, secret: true },
  { key: "directories", env: "KITH_DIRECTORIES", default: "(none)", description: "Comma-separated directories this node publishes its agent to: https base URLs of other nodes (or their Agent Card URLs).", parse: directoryUrls },
  { key: "verifyWorkers", env: "KITH_VERIFY_WORKERS", default: "(cores - 1)", description: "Worker threads for Ed25519, batched per event-loop turn: the two signatures of inbound INK intents, extension requests' signatures and their audit events' (0 to 64); by default one per CPU core the process may use besides its own, none on one core.", parse: verifyWorkers },
  { key: "directoryRevalidateSeconds", env: "KITH_DIRECTORY_REVALIDATE_SECONDS", default: "21600", description: "How often this node, as a directory, re-fetches the cards of agents listed with it (seconds, 1 to 2592000).", parse: revalidateSeconds },
  { key: "mailboxUrl", env: "KITH_MAILBOX_URL", default: "(none)", description: "A mailbox another node keeps for this agent (its base, e.g. https://friend.example/mailbox): the card's endpoint and card URL move there and the node collects its messages from it (no public address needed).", parse: publicUrl },
  { key: "metricsToken", env: "KITH_METRICS_TOKEN", default: "(none)", description: "Enables GET /metrics (Prometheus text format) for scrapers sending `Authorization: Bearer <this>`; at least 32 characters (openssl rand -hex 32). Without it there is no /metrics.", parse: metricsToken, secret: true },
  { key: "logFormat", env: "KITH_LOG_FORMAT", default: "(json, or pretty on a terminal)", description: "json: one JSON object per line; pretty: a compact line a person reads. Default: pretty when stdout is a terminal, json otherwise.", parse: oneOf(["json", "pretty"]) },
];

export type Flags = Record<string, string | boolean | undefined>;

/**
 * Resolves the node configuration once at start. `stored` holds the values `kith init` saved in
 * the database. Throws ConfigError naming the bad setting and what is allowed.
 */
export function resolveConfig(input: {
  flags: Flags;
  env: Record<string, string | undefined>;
  stored?: Record<string, string>;
  cwd?: string;
}): NodeConfig {
  const out: Record<string, unknown> = {};
  for (const spec of SETTINGS) {
    const flagValue = spec.flag ? input.flags[spec.flag] : undefined;
    let raw: string | undefined;
    let source: string;
    if (typeof flagValue === "string") {
      raw = spec.key === "passphrase" ? readSecretFile(flagValue, `--${spec.flag}`) : flagValue;
      source = `--${spec.flag}`;
    } else if (input.env[spec.env] !== undefined && input.env[spec.env] !== "") {
      raw = input.env[spec.env];
      source = spec.env;
    } else if (spec.stored && input.stored?.[spec.stored] !== undefined) {
      raw = input.stored[spec.stored];
      source = `stored setting ${spec.stored}`;
    } else {
      source = "default";
    }
    out[spec.key] = raw === undefined ? undefined : spec.parse(raw, source);
  }
  const port = (out.port as number | undefined) ?? DEFAULT_PORT;
  const tls = out.tlsCertFile !== undefined;
  const config: NodeConfig = {
    dataDir: resolve(input.cwd ?? process.cwd(), (out.dataDir as string | undefined) ?? "./kith-data"),
    port,
    host: (out.host as string | undefined) ?? "127.0.0.1",
    publicUrl: (out.publicUrl as string | undefined) ?? `${tls ? "https" : "http"}://localhost:${port}`,
    wordmark: (out.wordmark as NodeConfig["wordmark"] | undefined) ?? "svc",
    logLevel: (out.logLevel as LogLevel | undefined) ?? "info",
    passphrase: (out.passphrase as string | undefined) ?? null,
    ownerEmail: (out.ownerEmail as string | undefined) ?? null,
    trustProxy: (out.trustProxy as boolean | undefined) ?? false,
    allowPrivatePeers: (out.allowPrivatePeers as boolean | undefined) ?? false,
    tlsCertFile: (out.tlsCertFile as string | undefined) ?? null,
    tlsKeyFile: (out.tlsKeyFile as string | undefined) ?? null,
    tlsCaFile: (out.tlsCaFile as string | undefined) ?? null,
    ...signInSettings(out),
    ...assistantSettings(out),
    directories: (out.directories as string[] | undefined) ?? [],
    directoryRevalidateSeconds: (out.directoryRevalidateSeconds as number | undefined) ?? DEFAULT_REVALIDATE_SECONDS,
    verifyWorkers: (out.verifyWorkers as number | undefined) ?? null,
    mailboxUrl: (out.mailboxUrl as string | undefined) ?? null,
    metricsToken: (out.metricsToken as string | undefined) ?? null,
    logFormat: (out.logFormat as NodeConfig["logFormat"] | undefined) ?? null,
  };
  if ((config.tlsCertFile === null) !== (config.tlsKeyFile === null)) {
    throw new ConfigError(config.tlsCertFile ? "KITH_TLS_KEY_FILE" : "KITH_TLS_CERT_FILE", "KITH_TLS_CERT_FILE and KITH_TLS_KEY_FILE go together");
  }
  return config;
}

type SignInSettings = Pick<
  NodeConfig,
  | "smtpUrl" | "smtpFrom" | "googleClientId" | "googleClientSecret" | "googleSubject" | "googleIssuer" | "appleClientId" | "appleTeamId"
  | "appleKeyId" | "applePrivateKeyFile" | "appleSubject" | "appleIssuer" | "atprotoOwner" | "atprotoPlcUrl" | "atprotoHandleResolver" | "oauthRedirectUris"
>;

/** The sign-in settings, with the rules that span several of them (a provider is all or nothing). */
function signInSettings(out: Record<string, unknown>): SignInSettings {
  const str = (k: keyof SignInSettings) => (out[k] as string | undefined) ?? null;
  const s: SignInSettings = {
    smtpUrl: str("smtpUrl"),
    smtpFrom: str("smtpFrom"),
    googleClientId: str("googleClientId"),
    googleClientSecret: str("googleClientSecret"),
    googleSubject: str("googleSubject"),
    googleIssuer: str("googleIssuer") ?? GOOGLE_ISSUER,
    appleClientId: str("appleClientId"),
    appleTeamId: str("appleTeamId"),
    appleKeyId: str("appleKeyId"),
    applePrivateKeyFile: str("applePrivateKeyFile"),
    appleSubject: str("appleSubject"),
    appleIssuer: str("appleIssuer") ?? APPLE_ISSUER,
    atprotoOwner: str("atprotoOwner"),
    atprotoPlcUrl: str("atprotoPlcUrl") ?? PLC_DIRECTORY,
    atprotoHandleResolver: str("atprotoHandleResolver"),
    oauthRedirectUris: (out.oauthRedirectUris as string[] | undefined) ?? [],
  };
  allOrNothing({ KITH_GOOGLE_CLIENT_ID: s.googleClientId, KITH_GOOGLE_CLIENT_SECRET: s.googleClientSecret });
  allOrNothing({ KITH_APPLE_CLIENT_ID: s.appleClientId, KITH_APPLE_TEAM_ID: s.appleTeamId, KITH_APPLE_KEY_ID: s.appleKeyId, KITH_APPLE_PRIVATE_KEY_FILE: s.applePrivateKeyFile });
  const oauth = [s.googleClientId && "Google", s.appleClientId && "Apple", s.atprotoOwner && "AT Protocol"].filter(Boolean);
  if (oauth.length > 0 && s.oauthRedirectUris.length === 0) {
    throw new ConfigError("KITH_OAUTH_REDIRECT_URIS", `${oauth.join(", ")} sign-in is configured but no redirect URI is allowed; list your client's redirect URIs`);
  }
  return s;
}

type AssistantSettings = Pick<NodeConfig, "llmUrl" | "llmModel" | "llmApiKey" | "transcribeUrl" | "transcribeModel" | "transcribeApiKey">;

/** The AI backends of the owner's assistant: a chat model needs its URL and its name. */
function assistantSettings(out: Record<string, unknown>): AssistantSettings {
  const str = (k: keyof AssistantSettings) => (out[k] as string | undefined) ?? null;
  const s = { llmUrl: str("llmUrl"), llmModel: str("llmModel"), llmApiKey: str("llmApiKey"), transcribeUrl: str("transcribeUrl"), transcribeModel: str("transcribeModel") ?? "whisper-1", transcribeApiKey: str("transcribeApiKey") };
  allOrNothing({ KITH_LLM_URL: s.llmUrl, KITH_LLM_MODEL: s.llmModel });
  if (s.llmApiKey && !s.llmUrl) throw new ConfigError("KITH_LLM_URL", "required together with KITH_LLM_API_KEY");
  if (s.transcribeApiKey && !s.transcribeUrl) throw new ConfigError("KITH_TRANSCRIBE_URL", "required together with KITH_TRANSCRIBE_API_KEY");
  return s;
}

function allOrNothing(values: Record<string, string | null>): void {
  const set = Object.entries(values).filter(([, v]) => v !== null).map(([k]) => k);
  const missing = Object.entries(values).filter(([, v]) => v === null).map(([k]) => k);
  if (set.length > 0 && missing.length > 0) throw new ConfigError(missing[0]!, `required together with ${set.join(", ")}`);
}

export function settingNames(key: keyof NodeConfig): string {
  const spec = SETTINGS.find((s) => s.key === key);
  if (!spec) return key;
  return spec.flag ? `--${spec.flag} / ${spec.env}` : spec.env;
}

/** The passphrase file is a secret like the key file it opens: refused when group or others can read it. */
function readSecretFile(path: string, name: string): string {
  try {
    assertPrivateMode(path);
  } catch (e) {
    if (e instanceof KeyFileError && e.code === "insecure_mode") throw new ConfigError(name, e.message);
  }
  try {
    const text = readFileSync(path, "utf8").replace(/\r?\n$/, "");
    if (text.length === 0) throw new ConfigError(name, `${path} is empty`);
    return text;
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    throw new ConfigError(name, `cannot read ${path}`);
  }
}
