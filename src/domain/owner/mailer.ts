/** Outbound mail as the domain sees it; src/adapters has the SMTP and the log implementations (smtp-mailer.ts, log-mailer.ts). */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** `smtp` delivers; `log` writes the message (code included) to the node's log. */
  readonly kind: "smtp" | "log";
  send(message: MailMessage): Promise<void>;
}
