/**
 * Without SMTP the node "sends" mail by writing it to its log: one JSON line with the message
 * under `mail` (a field name the log redaction leaves alone, so the code is readable there). This
 * lets a self-hoster on a fresh box sign in; the start banner says so.
 */
interface InfoLog {
  info(msg: string, fields?: Record<string, unknown>): void;
}

export function createLogMailer(log: InfoLog) {
  return {
    kind: "log" as const,
    async send(message: { to: string; subject: string; text: string }): Promise<void> {
      log.info("mail not sent: no SMTP configured (KITH_SMTP_URL); the message follows", { to: message.to, subject: message.subject, mail: message.text });
    },
  };
}
