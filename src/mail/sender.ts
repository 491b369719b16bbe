// Delivers the outbox: with SMTP_URL, each unsent message over SMTP (marked sent, or its failure counted); without
// one, messages stay in the outbox and each is logged once, so nothing is silently dropped.
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Db } from '../persistence/db.js';
import { sendMail } from './smtp.js';

export const MAIL_POLL_MS = 1_000;
/** A message that failed this many times is left for an operator. */
export const MAX_ATTEMPTS = 5;

export class MailSender {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  /** Without SMTP: the highest outbox ID already logged. */
  private loggedUpTo = 0;
  readonly stats = { sent: 0, failed: 0, kept: 0 };

  constructor(
    private readonly db: Db,
    private readonly config: Pick<Config, 'smtpUrl' | 'mailFrom'>,
    private readonly log: Logger,
    private readonly pollMs = MAIL_POLL_MS,
  ) {}

  /** One pass over the outbox (a pass already running is awaited instead of started twice). */
  deliverPending(): Promise<void> {
    this.running ??= this.pass().finally(() => (this.running = null));
    return this.running;
  }

  private async pass(): Promise<void> {
    const url = this.config.smtpUrl;
    // Without SMTP only messages not logged yet are read: the oldest 100 unsent would otherwise be read again at
    // every pass and any message behind them never logged.
    const batch = await this.db.outbox.unsent(100, MAX_ATTEMPTS, url ? 0 : this.loggedUpTo);
    for (const m of batch) {
      if (!url) {
        this.loggedUpTo = m.id;
        this.stats.kept++;
        this.log.warn({ outboxId: m.id, to: m.to, subject: m.subject }, 'no SMTP_URL: email kept in the outbox, not sent');
        continue;
      }
      try {
        await sendMail(url, { from: this.config.mailFrom, to: m.to, subject: m.subject, body: m.body });
        await this.db.outbox.markSent(m.id);
        this.stats.sent++;
      } catch (err) {
        const msg = err instanceof Error ? err.message : String(err);
        await this.db.outbox.markFailed(m.id, msg);
        this.stats.failed++;
        this.log.warn({ outboxId: m.id, to: m.to, err: msg, attempt: m.attempts + 1 }, 'email delivery failed');
      }
    }
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.deliverPending().catch((err) => this.log.warn({ err }, 'outbox pass failed'));
    }, this.pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }
}
