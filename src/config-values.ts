import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { EMAIL_PATTERN } from "./domain/owner/sign-in.ts";
import { isAtprotoOwner } from "./adapters/atproto-oauth.ts";
import { isLoopback } from "./adapters/loopback.ts";

// The rules of config.ts's settings table: each parses one raw value (flag, variable or stored)
// or throws a ConfigError naming the setting and what is allowed.

export class ConfigError extends Error {
  constructor(readonly setting: string, message: string) {
    super(`Invalid setting ${setting}: ${message}`);
    this.name = "ConfigError";
  }
}

export function readableFile(raw: string, name: string): string {
  try {
    readFileSync(raw);
    return resolve(raw);
  } catch {
    throw new ConfigError(name, `cannot read ${raw}`);
  }
}

export function nonEmpty(raw: string, name: string): string {
  if (raw.trim() === "") throw new ConfigError(name, "must not be empty");
  return raw;
}

/** A bind address: an IPv6 address may come in URL brackets (`[::1]`); it is bound and shown without them doubled. */
export function bindHost(raw: string, name: string): string {
  const host = nonEmpty(raw, name).trim();
  const bracketed = /^\[([^\]]*)\]$/.exec(host);
  if (bracketed) {
    if (!bracketed[1]!.includes(":")) throw new ConfigError(name, `brackets are for IPv6 addresses (e.g. [::1]); write ${JSON.stringify(bracketed[1])} without them`);
    return bracketed[1]!;
  }
  if (/[\[\]\/\s]/.test(host)) throw new ConfigError(name, `${JSON.stringify(host)} is not an address or host name (e.g. 127.0.0.1, 0.0.0.0, ::1)`);
  return host;
}

/** A bearer secret a scraper sends: long enough not to be guessed, no whitespace (it goes in a header). */
export function metricsToken(raw: string, name: string): string {
  if (!/^[\x21-\x7e]{32,256}$/.test(raw)) throw new ConfigError(name, "expected 32 to 256 visible ASCII characters, no spaces (openssl rand -hex 32)");
  return raw;
}

export function port(raw: string, name: string): number {
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) {
    throw new ConfigError(name, `expected an integer from 0 to 65535, got ${JSON.stringify(raw)}`);
  }
  return Number(raw);
}

export function bool(raw: string, name: string): boolean {
  const v = raw.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(v)) return true;
  if (["0", "false", "no", "off"].includes(v)) return false;
  throw new ConfigError(name, `expected one of 1, true, yes, on, 0, false, no, off; got ${JSON.stringify(raw)}`);
}

export function oneOf<T extends string>(allowed: readonly T[]) {
  return (raw: string, name: string): T => {
    if (!(allowed as readonly string[]).includes(raw)) {
      throw new ConfigError(name, `expected one of ${allowed.join(", ")}; got ${JSON.stringify(raw)}`);
    }
    return raw as T;
  };
}

export function email(raw: string, name: string): string {
  const v = raw.trim();
  if (v.length > 254 || !EMAIL_PATTERN.test(v)) {
    throw new ConfigError(name, `expected an email address like owner@example.com; got ${JSON.stringify(raw)}`);
  }
  return v.toLowerCase();
}

/** Absolute http(s) base URL without credentials, query or fragment; trailing slash removed. */
export function publicUrl(raw: string, name: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `expected an absolute URL like https://kith.example.com; got ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new ConfigError(name, "must use https (or http for local testing)");
  if (url.username || url.password) throw new ConfigError(name, "must not contain a user name or password");
  if (url.search || url.hash || raw.includes("#") || raw.includes("?")) throw new ConfigError(name, "must not contain a query or fragment");
  return url.toString().replace(/\/+$/, "");
}

export function smtpUrl(raw: string, name: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, "expected a URL like smtp://user:password@mail.example.com:587 or smtps://…:465");
  }
  if (url.protocol !== "smtp:" && url.protocol !== "smtps:") throw new ConfigError(name, "must start with smtp:// (STARTTLS) or smtps:// (TLS)");
  if (!url.hostname) throw new ConfigError(name, "names no host");
  return raw;
}

/** An https base URL (http only for a loopback host: a provider under test on this machine). */
export function issuerUrl(raw: string, name: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `expected an https URL; got ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopback(url.hostname))) throw new ConfigError(name, "must use https");
  if (url.search || url.hash || url.username || url.password) throw new ConfigError(name, "must not contain credentials, a query or a fragment");
  return raw.replace(/\/+$/, "");
}

/**
 * An operator's AI service: https anywhere, plain http only on a loopback host (a local Ollama or
 * llama.cpp server), since the API key and the owner's messages travel to it.
 */
export function serviceUrl(raw: string, name: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `expected a URL like http://127.0.0.1:11434/v1 or https://api.example.com/v1; got ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopback(url.hostname))) throw new ConfigError(name, "must use https (plain http only on a loopback address)");
  if (url.search || url.hash || url.username || url.password) throw new ConfigError(name, "must not contain credentials, a query or a fragment (the key goes in its own setting)");
  return raw.replace(/\/+$/, "");
}

export function atprotoOwner(raw: string, name: string): string {
  const v = raw.trim().replace(/^@/, "");
  if (!isAtprotoOwner(v)) throw new ConfigError(name, `expected a DID (did:plc:…, did:web:…) or a handle like alice.bsky.social; got ${JSON.stringify(raw)}`);
  return v;
}

/** Redirect URIs are matched exactly; each is absolute, without a fragment (RFC 6749 §3.1.2). */
export function redirectUris(raw: string, name: string): string[] {
  const list = raw.split(",").map((u) => u.trim()).filter((u) => u.length > 0);
  if (list.length === 0) throw new ConfigError(name, "lists no URI");
  for (const u of list) {
    let url: URL;
    try {
      url = new URL(u);
    } catch {
      throw new ConfigError(name, `${JSON.stringify(u)} is not an absolute URI`);
    }
    if (url.hash || u.includes("#")) throw new ConfigError(name, `${JSON.stringify(u)} must not have a fragment`);
    if (url.protocol === "http:" && !isLoopback(url.hostname)) throw new ConfigError(name, `${JSON.stringify(u)}: plain http is only for loopback addresses`);
    if (url.protocol === "javascript:" || url.protocol === "data:") throw new ConfigError(name, `${JSON.stringify(u)}: not a redirect target`);
  }
  return list;
}

/**
 * Directories to publish to: https URLs without credentials, query or fragment, either a node's
 * base URL (its agent id comes from its card alias) or an Agent Card URL (…/ink/v1/<id>/agent.json).
 */
export function directoryUrls(raw: string, name: string): string[] {
  const list = raw.split(",").map((u) => u.trim()).filter((u) => u.length > 0);
  if (list.length === 0) throw new ConfigError(name, "lists no URL");
  if (list.length > 16) throw new ConfigError(name, "at most 16 directories");
  const out: string[] = [];
  for (const u of list) {
    let url: URL;
    try {
      url = new URL(u);
    } catch {
      throw new ConfigError(name, `${JSON.stringify(u)} is not an absolute URL`);
    }
    if (url.protocol !== "https:") throw new ConfigError(name, `${JSON.stringify(u)}: directories are reached over https only`);
    if (url.username || url.password) throw new ConfigError(name, `${JSON.stringify(u)} must not contain a user name or password`);
    if (url.search || url.hash || u.includes("?") || u.includes("#")) throw new ConfigError(name, `${JSON.stringify(u)} must not contain a query or fragment`);
    const normalized = /\/ink\/v1\/[^/]+\/agent\.json$/.test(url.pathname) ? url.toString() : url.toString().replace(/\/+$/, "");
    if (!out.includes(normalized)) out.push(normalized);
  }
  return out;
}

export function revalidateSeconds(raw: string, name: string): number {
  if (!/^\d{1,7}$/.test(raw.trim()) || Number(raw) < 1 || Number(raw) > 30 * 24 * 3600) {
    throw new ConfigError(name, `expected a number of seconds from 1 to 2592000; got ${JSON.stringify(raw)}`);
  }
  return Number(raw);
}

export function verifyWorkers(raw: string, name: string): number {
  if (!/^\d{1,2}$/.test(raw.trim()) || Number(raw) > 64) throw new ConfigError(name, `expected a number of worker threads from 0 to 64; got ${JSON.stringify(raw)}`);
  return Number(raw);
}
