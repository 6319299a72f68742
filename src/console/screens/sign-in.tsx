/** @jsxImportSource preact */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, ApiError, publicJson, signIn } from "../lib/api.ts";
import { Button, Field, Notice } from "../ui/kit.tsx";

const PROVIDER_NAMES: Record<string, string> = { google: "Google", apple: "Apple", atproto: "Bluesky (AT Protocol)" };
const PENDING_KEY = "kith.oauth";
const REDIRECT_PATH = "/console";

/** How this node was started, written into the page by the node (`binary` or `checkout`). */
function ownerCodeCommand(withEmail: boolean): string {
  const runtime = document.querySelector<HTMLMetaElement>('meta[name="kith-runtime"]')?.content;
  const base = runtime === "checkout" ? "npm run kith -- owner code" : "kith owner code";
  return `${base} --data-dir <your data directory>${withEmail ? " --email you@example.com" : ""}`;
}

export function SignIn({ error, onSignedIn }: { error?: string; onSignedIn: () => void }) {
  const [providers, setProviders] = useState<string[] | null>(null);
  const [email, setEmail] = useState("");
  const [code, setCode] = useState("");
  const [step, setStep] = useState<"email" | "code">("email");
  const [sent, setSent] = useState(false);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(error ?? null);
  const codeInput = useRef<HTMLInputElement>(null);
  // The code field takes the focus when it appears (autofocus does not fire while a button has it).
  useEffect(() => void (step === "code" && codeInput.current?.focus()), [step]);
  useEffect(() => {
    publicJson<{ providers: string[] }>("/auth/providers").then((r) => setProviders(r.providers), () => setProviders([]));
  }, []);
  const hasEmail = providers?.includes("email") ?? true;
  // Without an owner email nothing can be mailed: the only way in is a `kith owner code` code.
  const askCode = step === "code" || !hasEmail;
  const act = async (fn: () => Promise<void>) => {
    setBusy(true);
    setProblem(null);
    try {
      await fn();
    } catch (e) {
      setProblem(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  const send = () => act(async () => {
    await publicJson("/auth/email/send", { email: email.trim() });
    setSent(true);
    setStep("code");
  });
  const verify = () => act(async () => {
    await signIn("/auth/email/verify", { email: email.trim(), code: code.replace(/\s+/g, "") });
    onSignedIn();
  });
  return (
    <div class="signin">
      <main class="signin-card" id="main">
        <p class="brand brand-large"><span class="brand-mark" aria-hidden="true">k</span> Kith</p>
        <h1>Sign in to your node</h1>
        <p class="subtitle">Only this node's owner can sign in.</p>
        {problem && <Notice tone="bad">{problem}</Notice>}
        <form onSubmit={(e) => { e.preventDefault(); void (askCode ? verify() : send()); }}>
          <Field label="Email address">
            {(id) => <input id={id} type="email" autoComplete="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />}
          </Field>
          {askCode && (
            <Field label="Sign-in code" hint={sent ? "We sent an 8-digit code to this address if it is the owner's. It is valid for 10 minutes." : "The code from your email, or the 12 digits kith owner code printed."}>
              {(id, hint) => <input id={id} ref={codeInput} inputMode="numeric" autoComplete="one-time-code" required value={code} aria-describedby={hint} onInput={(e) => setCode(e.currentTarget.value)} />}
            </Field>
          )}
          <div class="row">
            {!askCode ? (
              <>
                <Button kind="primary" type="submit" busy={busy}>Email me a code</Button>
                <Button kind="ghost" onClick={() => setStep("code")}>I have a code</Button>
              </>
            ) : (
              <>
                <Button kind="primary" type="submit" busy={busy}>Sign in</Button>
                {hasEmail && <Button kind="ghost" onClick={() => { setStep("email"); setCode(""); }}>Send a new code</Button>}
              </>
            )}
          </div>
        </form>
        <div class="hint-box">
          {hasEmail ? (
            <p><strong>No mail set up on this node?</strong> On the machine it runs on, run <code>{ownerCodeCommand(false)}</code> and enter the code it prints. Without mail, the node also writes each emailed code to its log.</p>
          ) : (
            <p><strong>This node has no owner yet.</strong> On the machine it runs on, run <code>{ownerCodeCommand(true)}</code> with your address, then enter the address and the code here.</p>
          )}
        </div>
        {providers && providers.some((p) => p !== "email") && (
          <div class="providers">
            <p class="divider"><span>or</span></p>
            {providers.filter((p) => p !== "email").map((p) => (
              <Button kind="secondary" class="btn-block" busy={busy} onClick={() => act(() => startOAuth(p))}>Continue with {PROVIDER_NAMES[p] ?? p}</Button>
            ))}
          </div>
        )}
      </main>
    </div>
  );
}

/** PKCE S256 (RFC 7636) and a random state; the verifier waits in sessionStorage for the return. */
async function startOAuth(provider: string): Promise<void> {
  const random = (n: number) => base64url(crypto.getRandomValues(new Uint8Array(n)));
  const state = random(24);
  const verifier = random(48);
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
  const redirectUri = `${location.origin}${REDIRECT_PATH}`;
  const params = new URLSearchParams({ redirect_uri: redirectUri, state, code_challenge: challenge, code_challenge_method: "S256", mode: "json" });
  try {
    const { url } = await publicJson<{ url: string }>(`/auth/${provider}/authorize?${params}`);
    sessionStorage.setItem(PENDING_KEY, JSON.stringify({ provider, state, verifier, redirectUri }));
    location.assign(url);
  } catch (e) {
    if (e instanceof ApiError && /redirect_uri/.test(e.message)) throw new Error(`Add ${redirectUri} to KITH_OAUTH_REDIRECT_URIS on the node (and at the provider) to sign in this way here.`);
    throw e;
  }
}

/** Back from a provider (`/console?code=…&state=…`): finish the sign-in. False when this is no return. */
export async function finishOAuthReturn(): Promise<boolean> {
  const query = new URLSearchParams(location.search);
  const stored = sessionStorage.getItem(PENDING_KEY);
  if (!query.has("state") || !stored) return false;
  sessionStorage.removeItem(PENDING_KEY);
  history.replaceState(null, "", REDIRECT_PATH + location.hash);
  const pending = JSON.parse(stored) as { provider: string; state: string; verifier: string; redirectUri: string };
  if (query.get("state") !== pending.state) throw new Error("The sign-in came back with a state this page did not start; start again.");
  if (query.has("error") || !query.get("code")) throw new Error(`The provider did not sign you in (${query.get("error") ?? "no code"}).`);
  const body: Record<string, string> = { code: query.get("code")!, state: pending.state, redirect_uri: pending.redirectUri, code_verifier: pending.verifier };
  if (query.get("iss")) body.iss = query.get("iss")!;
  await signIn(`/auth/${pending.provider}/callback`, body);
  return true;
}

function base64url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** A node started empty by `kith owner code`: the owner names the agent. */
export function CreateAgent({ onCreated }: { onCreated: () => void }) {
  const [handle, setHandle] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [timezone, setTimezone] = useState(Intl.DateTimeFormat().resolvedOptions().timeZone);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const create = async () => {
    setBusy(true);
    setProblem(null);
    try {
      await api("", { method: "POST", body: { handle: handle.trim(), ...(displayName.trim() ? { displayName: displayName.trim() } : {}), timezone } });
      onCreated();
    } catch (e) {
      setProblem(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="signin">
      <main class="signin-card" id="main">
        <h1>Create your agent</h1>
        <p class="subtitle">Your node has no agent yet. Its keys are made here, on your machine, and never leave it.</p>
        {problem && <Notice tone="bad">{problem}</Notice>}
        <form onSubmit={(e) => { e.preventDefault(); void create(); }}>
          <Field label="Handle" hint="Lower-case letters, digits and dashes; people find you by it.">
            {(id, hint) => <input id={id} required value={handle} aria-describedby={hint} onInput={(e) => setHandle(e.currentTarget.value)} />}
          </Field>
          <Field label="Display name">{(id) => <input id={id} value={displayName} onInput={(e) => setDisplayName(e.currentTarget.value)} />}</Field>
          <Field label="Time zone">{(id) => <input id={id} value={timezone} onInput={(e) => setTimezone(e.currentTarget.value)} />}</Field>
          <Button kind="primary" type="submit" busy={busy}>Create agent</Button>
        </form>
      </main>
    </div>
  );
}
