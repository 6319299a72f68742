import { cliName } from "../command.ts";
import { openAiUrl } from "../../adapters/llm.ts";
import { outboundRequest } from "../../adapters/outbound.ts";
import { createSmtpMailer } from "../../adapters/smtp-mailer.ts";
import { fail, ok, skip, warn, type CheckResult, type DoctorContext } from "./check.ts";

/** The relay of sign-in mail: connected, greeted and logged in to as a real send would (nothing is sent). */
export async function checkSmtp(ctx: DoctorContext): Promise<CheckResult> {
  if (!ctx.config.smtpUrl) return skip("smtp", `not configured: sign-in codes go to the log (${cliName()} owner code prints one)`);
  const host = new URL(ctx.config.smtpUrl).host;
  const mailer = createSmtpMailer({ url: ctx.config.smtpUrl, from: ctx.config.smtpFrom ?? "kith@localhost" });
  try {
    await withDeadline(mailer.verify(), ctx.limits.probeTimeoutMs);
    return ok("smtp", `${host} accepts a session`);
  } catch (e) {
    // nodemailer's messages carry the server's answer, never the password of the URL
    return fail("smtp", `${host}: ${e instanceof Error ? e.message : String(e)}`, "check KITH_SMTP_URL (host, port, user and password) and that the relay accepts connections from this machine");
  } finally {
    mailer.close();
  }
}

/** An OpenAI-compatible API (KITH_LLM_URL, KITH_TRANSCRIBE_URL): answers GET /v1/models, and lists the model when it says. */
export async function checkOpenAi(ctx: DoctorContext, which: "llm" | "transcribe"): Promise<CheckResult> {
  const c = ctx.config;
  const [url, model, apiKey, setting] = which === "llm" ? [c.llmUrl, c.llmModel, c.llmApiKey, "KITH_LLM_URL"] : [c.transcribeUrl, c.transcribeModel, c.transcribeApiKey, "KITH_TRANSCRIBE_URL"];
  if (!url) return skip(which, `not configured (${setting})`);
  const models = openAiUrl(url, "/models");
  let res;
  try {
    res = await outboundRequest(models, { method: "GET", headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {} }, { timeoutMs: ctx.limits.probeTimeoutMs });
  } catch (e) {
    return fail(which, `${new URL(url).host}: ${e instanceof Error ? e.message : String(e)}`, `check ${setting} and that the service is running`);
  }
  if (res.status === 401 || res.status === 403) return fail(which, `${models} refuses the key (${res.status})`, `check ${which === "llm" ? "KITH_LLM_API_KEY" : "KITH_TRANSCRIBE_API_KEY"}`);
  if (res.status !== 200) return fail(which, `${models} answers ${res.status}`, `check ${setting}: it must be the base of an OpenAI-compatible API`);
  const listed = Array.isArray(res.json?.data) ? (res.json.data as Array<{ id?: unknown }>).map((m) => m.id) : null;
  if (model && listed && !listed.includes(model)) return warn(which, `${new URL(url).host} answers but does not list the model ${model}`, `pull or name an available model (${listed.slice(0, 5).join(", ")})`);
  return ok(which, `${new URL(url).host} answers${model ? ` (model ${model})` : ""}`);
}

function withDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    p.then((v) => (clearTimeout(t), resolve(v)), (e) => (clearTimeout(t), reject(e)));
  });
}
