import { describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, resolveConfig, SETTINGS } from "../../src/config.ts";

const base = { flags: {}, env: {}, cwd: "/srv" };

describe("config: precedence flag > env > stored > default", () => {
  test("defaults", () => {
    const c = resolveConfig(base);
    expect(c).toMatchObject({ dataDir: "/srv/kith-data", port: 8787, host: "127.0.0.1", publicUrl: "http://localhost:8787", wordmark: "svc", logLevel: "info", passphrase: null, trustProxy: false, allowPrivatePeers: false });
  });

  test("stored beats default, env beats stored, flag beats env", () => {
    const stored = { public_url: "https://stored.example", wordmark: "tulpa" };
    expect(resolveConfig({ ...base, stored }).publicUrl).toBe("https://stored.example");
    expect(resolveConfig({ ...base, stored, env: { KITH_PUBLIC_URL: "https://env.example/" } }).publicUrl).toBe("https://env.example");
    expect(resolveConfig({ ...base, stored, env: { KITH_PUBLIC_URL: "https://env.example" }, flags: { "public-url": "https://flag.example" } }).publicUrl).toBe("https://flag.example");
    expect(resolveConfig({ ...base, stored }).wordmark).toBe("tulpa");
    expect(resolveConfig({ ...base, stored, env: { KITH_WORDMARK: "svc" } }).wordmark).toBe("svc");
  });

  test("the default public URL follows the port", () => {
    expect(resolveConfig({ ...base, flags: { port: "9000" } }).publicUrl).toBe("http://localhost:9000");
  });

  test("passphrase from env, or from the file named by --passphrase-file", () => {
    expect(resolveConfig({ ...base, env: { KITH_KEY_PASSPHRASE: "s3cret words" } }).passphrase).toBe("s3cret words");
    const file = join(mkdtempSync(join(tmpdir(), "kith-cfg-")), "pass");
    writeFileSync(file, "from file\n", { mode: 0o600 });
    expect(resolveConfig({ ...base, flags: { "passphrase-file": file } }).passphrase).toBe("from file");
  });

  test("a passphrase file group or others can read is refused, like the key file it opens", () => {
    const file = join(mkdtempSync(join(tmpdir(), "kith-cfg-")), "pass");
    for (const mode of [0o644, 0o640, 0o604]) {
      writeFileSync(file, "from file\n");
      chmodSync(file, mode);
      expect(() => resolveConfig({ ...base, flags: { "passphrase-file": file } })).toThrow(`Invalid setting --passphrase-file: ${file} is readable by group or others (mode ${mode.toString(8)}); run: chmod 600 ${file}`);
    }
  });
});

describe("config: bad settings name the setting and what is allowed", () => {
  const cases: Array<[string, Parameters<typeof resolveConfig>[0], RegExp]> = [
    ["port not a number", { ...base, flags: { port: "abc" } }, /--port: expected an integer from 0 to 65535/],
    ["port too big", { ...base, env: { KITH_PORT: "70000" } }, /KITH_PORT: expected an integer from 0 to 65535/],
    ["wordmark", { ...base, env: { KITH_WORDMARK: "ink" } }, /KITH_WORDMARK: expected one of svc, tulpa/],
    ["log level", { ...base, flags: { "log-level": "loud" } }, /--log-level: expected one of debug, info, warn, error, silent/],
    ["boolean", { ...base, env: { KITH_TRUST_PROXY: "maybe" } }, /KITH_TRUST_PROXY: expected one of 1, true/],
    ["verify workers", { ...base, env: { KITH_VERIFY_WORKERS: "-1" } }, /KITH_VERIFY_WORKERS: expected a number of worker threads from 0 to 64/],
    ["verify workers too many", { ...base, env: { KITH_VERIFY_WORKERS: "65" } }, /KITH_VERIFY_WORKERS: expected a number of worker threads from 0 to 64/],
    ["public url scheme", { ...base, flags: { "public-url": "ftp://x.example" } }, /--public-url: must use https/],
    ["public url garbage", { ...base, env: { KITH_PUBLIC_URL: "not a url" } }, /KITH_PUBLIC_URL: expected an absolute URL/],
    ["public url query", { ...base, flags: { "public-url": "https://x.example/?a=1" } }, /--public-url: must not contain a query/],
    ["public url credentials", { ...base, flags: { "public-url": "https://u:p@x.example" } }, /must not contain a user name/],
    ["owner email", { ...base, env: { KITH_OWNER_EMAIL: "not-an-email" } }, /KITH_OWNER_EMAIL: expected an email address/],
    ["stored value", { ...base, stored: { wordmark: "bogus" } }, /stored setting wordmark: expected one of svc, tulpa/],
    ["missing passphrase file", { ...base, flags: { "passphrase-file": "/nonexistent/x" } }, /--passphrase-file: cannot read/],
    ["smtp scheme", { ...base, env: { KITH_SMTP_URL: "http://mail.example.com" } }, /KITH_SMTP_URL: must start with smtp:\/\/ \(STARTTLS\) or smtps:\/\//],
    ["google half configured", { ...base, env: { KITH_GOOGLE_CLIENT_ID: "id", KITH_OAUTH_REDIRECT_URIS: "https://app.example/cb" } }, /KITH_GOOGLE_CLIENT_SECRET: required together with KITH_GOOGLE_CLIENT_ID/],
    ["apple half configured", { ...base, env: { KITH_APPLE_CLIENT_ID: "id", KITH_APPLE_TEAM_ID: "t", KITH_OAUTH_REDIRECT_URIS: "https://app.example/cb" } }, /KITH_APPLE_KEY_ID: required together with/],
    ["provider without redirect URIs", { ...base, env: { KITH_ATPROTO_OWNER: "alice.bsky.social" } }, /KITH_OAUTH_REDIRECT_URIS: AT Protocol sign-in is configured but no redirect URI is allowed/],
    ["redirect URI with a fragment", { ...base, env: { KITH_OAUTH_REDIRECT_URIS: "https://app.example/cb#x" } }, /KITH_OAUTH_REDIRECT_URIS: "https:\/\/app.example\/cb#x" must not have a fragment/],
    ["redirect URI over plain http", { ...base, env: { KITH_OAUTH_REDIRECT_URIS: "http://app.example/cb" } }, /plain http is only for loopback/],
    ["issuer over plain http", { ...base, env: { KITH_GOOGLE_ISSUER: "http://accounts.example.com" } }, /KITH_GOOGLE_ISSUER: must use https/],
    ["atproto owner", { ...base, env: { KITH_ATPROTO_OWNER: "not a handle", KITH_OAUTH_REDIRECT_URIS: "https://app.example/cb" } }, /KITH_ATPROTO_OWNER: expected a DID/],
  ];
  for (const [name, input, pattern] of cases) {
    test(name, () => {
      expect(() => resolveConfig(input)).toThrow(ConfigError);
      expect(() => resolveConfig(input)).toThrow(pattern);
    });
  }
});

test("sign-in settings: providers, allowlist, loopback http for tests only; secrets never echoed", () => {
  const c = resolveConfig({
    ...base,
    env: {
      KITH_GOOGLE_CLIENT_ID: "gid",
      KITH_GOOGLE_CLIENT_SECRET: "gsecret",
      KITH_ATPROTO_OWNER: "@Alice.bsky.social",
      KITH_OAUTH_REDIRECT_URIS: "https://app.example/cb, http://127.0.0.1:5173/cb",
      KITH_GOOGLE_ISSUER: "http://127.0.0.1:4000",
    },
  });
  expect(c).toMatchObject({ googleClientId: "gid", googleClientSecret: "gsecret", googleIssuer: "http://127.0.0.1:4000", appleIssuer: "https://appleid.apple.com", atprotoOwner: "Alice.bsky.social", atprotoPlcUrl: "https://plc.directory", oauthRedirectUris: ["https://app.example/cb", "http://127.0.0.1:5173/cb"], smtpUrl: null });
  expect(() => resolveConfig({ ...base, env: { KITH_SMTP_URL: "http://user:hunter2@mail.example" } })).not.toThrow(/hunter2/);
  expect(SETTINGS.filter((s) => s.secret).map((s) => s.env).sort()).toEqual(["KITH_GOOGLE_CLIENT_SECRET", "KITH_KEY_PASSPHRASE", "KITH_LLM_API_KEY", "KITH_SMTP_URL", "KITH_TRANSCRIBE_API_KEY"]);
});

test("every setting has an env var, a default and a description", () => {
  for (const s of SETTINGS) {
    expect(s.env).toMatch(/^KITH_[A-Z_]+$/);
    expect(s.description.length).toBeGreaterThan(10);
    expect(s.default.length).toBeGreaterThan(0);
  }
});

test("assistant settings: LLM URL and model together, https or loopback http, keys need their URL", () => {
  expect(resolveConfig(base)).toMatchObject({ llmUrl: null, llmModel: null, llmApiKey: null, transcribeUrl: null, transcribeModel: "whisper-1", transcribeApiKey: null });
  const ok = resolveConfig({ ...base, env: { KITH_LLM_URL: "http://127.0.0.1:11434/v1/", KITH_LLM_MODEL: "llama3.1", KITH_TRANSCRIBE_URL: "https://stt.example.com", KITH_TRANSCRIBE_API_KEY: "sk-x" } });
  expect(ok).toMatchObject({ llmUrl: "http://127.0.0.1:11434/v1", llmModel: "llama3.1", transcribeUrl: "https://stt.example.com", transcribeApiKey: "sk-x" });
  expect(() => resolveConfig({ ...base, env: { KITH_LLM_URL: "http://127.0.0.1:11434" } })).toThrow(/KITH_LLM_MODEL: required together with KITH_LLM_URL/);
  expect(() => resolveConfig({ ...base, env: { KITH_LLM_MODEL: "m" } })).toThrow(/KITH_LLM_URL: required together with KITH_LLM_MODEL/);
  expect(() => resolveConfig({ ...base, env: { KITH_LLM_URL: "http://ollama.lan:11434", KITH_LLM_MODEL: "m" } })).toThrow(/KITH_LLM_URL: must use https/);
  expect(() => resolveConfig({ ...base, env: { KITH_LLM_URL: "https://user:pw@api.example.com", KITH_LLM_MODEL: "m" } })).toThrow(/must not contain credentials/);
  expect(() => resolveConfig({ ...base, env: { KITH_LLM_URL: "not a url", KITH_LLM_MODEL: "m" } })).toThrow(/KITH_LLM_URL: expected a URL/);
  expect(() => resolveConfig({ ...base, env: { KITH_LLM_API_KEY: "sk-secret" } })).toThrow(/KITH_LLM_URL: required together with KITH_LLM_API_KEY/);
  expect(() => resolveConfig({ ...base, env: { KITH_TRANSCRIBE_API_KEY: "sk-secret" } })).toThrow(/KITH_TRANSCRIBE_URL/);
  expect(() => resolveConfig({ ...base, env: { KITH_LLM_API_KEY: "sk-secret" } })).not.toThrow(/sk-secret/);
});

test("directory settings: KITH_DIRECTORIES (https base or card URLs, deduplicated) and the re-validation period, checked at start", () => {
  expect(resolveConfig(base)).toMatchObject({ directories: [], directoryRevalidateSeconds: 21600 });
  const card = "https://dir.example/ink/v1/svc%3Az6Mkabc/agent.json";
  expect(resolveConfig({ ...base, env: { KITH_DIRECTORIES: ` https://one.example/, ${card},https://one.example , https://two.example/kith/` } }).directories).toEqual(["https://one.example", card, "https://two.example/kith"]);
  expect(resolveConfig({ ...base, env: { KITH_DIRECTORY_REVALIDATE_SECONDS: "60" } }).directoryRevalidateSeconds).toBe(60);
  const bad: Array<[Record<string, string>, RegExp]> = [
    [{ KITH_DIRECTORIES: "http://dir.example" }, /KITH_DIRECTORIES.*https only/],
    [{ KITH_DIRECTORIES: "not a url" }, /KITH_DIRECTORIES.*not an absolute URL/],
    [{ KITH_DIRECTORIES: "https://u:p@dir.example" }, /KITH_DIRECTORIES.*user name or password/],
    [{ KITH_DIRECTORIES: "https://dir.example/?x=1" }, /KITH_DIRECTORIES.*query or fragment/],
    [{ KITH_DIRECTORIES: " , " }, /KITH_DIRECTORIES.*lists no URL/],
    [{ KITH_DIRECTORIES: Array.from({ length: 17 }, (_, i) => `https://d${i}.example`).join(",") }, /at most 16/],
    [{ KITH_DIRECTORY_REVALIDATE_SECONDS: "0" }, /KITH_DIRECTORY_REVALIDATE_SECONDS.*1 to 2592000/],
    [{ KITH_DIRECTORY_REVALIDATE_SECONDS: "1h" }, /KITH_DIRECTORY_REVALIDATE_SECONDS/],
    [{ KITH_DIRECTORY_REVALIDATE_SECONDS: "2592001" }, /KITH_DIRECTORY_REVALIDATE_SECONDS/],
  ];
  for (const [env, message] of bad) {
    expect(() => resolveConfig({ ...base, env })).toThrow(ConfigError);
    expect(() => resolveConfig({ ...base, env })).toThrow(message);
  }
});
