import type { Transporter } from "nodemailer";

/**
 * Delivery over SMTP (KITH_SMTP_URL: smtp://user:pass@host:587 with STARTTLS, or smtps://host:465).
 * Credentials never cross the network in clear: STARTTLS is required for any host but loopback.
 * Every step has a timeout, so a dead relay cannot pile up connections.
 */
export interface SmtpMailerOptions {
  url: string;
  from: string;
}

export function createSmtpMailer(options: SmtpMailerOptions) {
  const url = new URL(options.url);
  const loopback = url.hostname === "localhost" || url.hostname === "[::1]" || url.hostname.startsWith("127.");
  // nodemailer is loaded on the first mail, not at start-up (~15 ms and several MB otherwise).
  let transport: Promise<Transporter> | null = null;
  const open = () =>
    (transport ??= import("nodemailer").then((m) =>
      m.default.createTransport(options.url, {
        requireTLS: url.protocol === "smtp:" && !loopback,
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 20_000,
      } as never),
    ));
  return {
    kind: "smtp" as const,
    async send(message: { to: string; subject: string; text: string }): Promise<void> {
      await (await open()).sendMail({ from: options.from, to: message.to, subject: message.subject, text: message.text });
    },
    /** Connects, greets and authenticates as a send would, without sending (kith doctor). */
    async verify(): Promise<void> {
      await (await open()).verify();
    },
    close(): void {
      void transport?.then((t) => t.close(), () => {});
    },
  };
}
