/**
 * The console's only way to the node: the owner API with a bearer token held in memory, and the
 * browser session whose refresh token is an HttpOnly cookie the page never sees
 * (docs/decisions/owner-console.md). Every request is same-origin.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface Session {
  accessToken: string;
  expiresIn: number;
}

const SESSION_HEADER = { "x-kith-session": "cookie" };
let accessToken: string | null = null;
let refreshTimer: number | undefined;
let refreshing: Promise<boolean> | null = null;
const listeners = new Set<(signedIn: boolean) => void>();

/** Called with false when the session is gone (expired, revoked, signed out elsewhere). */
export function onSessionChange(listener: (signedIn: boolean) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function setSession(session: Session | null): void {
  accessToken = session?.accessToken ?? null;
  clearTimeout(refreshTimer);
  // Refresh a minute before the 15-minute access token runs out; a sleeping laptop refreshes on its next 401.
  if (session) refreshTimer = window.setTimeout(() => void refresh(), Math.max(10, session.expiresIn - 60) * 1000);
  for (const l of listeners) l(session !== null);
}

/** Rotates the session cookie for a new access token; single-flight, so parallel 401s share one refresh. */
export function refresh(): Promise<boolean> {
  refreshing ??= (async () => {
    try {
      const res = await fetch("/auth/session/refresh", { method: "POST", headers: SESSION_HEADER, credentials: "same-origin" });
      if (!res.ok) {
        setSession(null);
        return false;
      }
      setSession((await res.json()) as Session);
      return true;
    } catch {
      return accessToken !== null; // offline: keep what we have, the next call retries
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

/** Sign-in endpoints (email verify, OAuth callback) in cookie mode. */
export async function signIn(path: string, body: unknown): Promise<void> {
  const res = await fetch(path, { method: "POST", headers: { "content-type": "application/json", ...SESSION_HEADER }, body: JSON.stringify(body), credentials: "same-origin" });
  if (!res.ok) throw await errorOf(res);
  setSession((await res.json()) as Session);
}

export async function signOut(): Promise<void> {
  await fetch("/auth/session/logout", { method: "POST", headers: SESSION_HEADER, credentials: "same-origin" }).catch(() => undefined);
  setSession(null);
}

/** A public (unauthenticated) JSON request to the node. */
export async function publicJson<T>(path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, body === undefined ? {} : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!res.ok) throw await errorOf(res);
  return (await res.json()) as T;
}

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** An owner API call (`/api/svc…`); a 401 refreshes the session once and retries. */
export async function api<T>(path: string, options: { method?: Method; body?: unknown } = {}): Promise<T> {
  const attempt = () => {
    const headers: Record<string, string> = { authorization: `Bearer ${accessToken ?? ""}` };
    if (options.body !== undefined) headers["content-type"] = "application/json";
    return fetch(`/api/svc${path}`, { method: options.method ?? (options.body === undefined ? "GET" : "POST"), headers, body: options.body === undefined ? null : JSON.stringify(options.body) });
  };
  let res = await attempt();
  if (res.status === 401 && (await refresh())) res = await attempt();
  if (!res.ok) throw await errorOf(res);
  return (await res.json()) as T;
}

async function errorOf(res: Response): Promise<ApiError> {
  try {
    const body = (await res.json()) as { error?: string; message?: string };
    return new ApiError(res.status, body.error ?? "error", body.message ?? `the node answered ${res.status}`);
  } catch {
    return new ApiError(res.status, "error", `the node answered ${res.status}`);
  }
}

/** Query string from the defined members of `params`. */
export function qs(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : "";
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}
