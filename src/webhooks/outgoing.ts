// Outgoing webhooks: a message that mentions an outgoing-webhook bot, or a direct message to one, is POSTed to the
// bot's URL after the commit (the reference's Zulip interface payload), and the bot's answer is sent back as the bot.
// Deliveries run off the realm actor, a few at a time, each with a timeout and bounded retries; after repeated
// failures the conversation hears "Failure! Bot is unavailable" and the owner gets a direct message saying why.
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { Realms } from '../actors/realms.js';
import type { Config } from '../config.js';
import type { EventHub } from '../bus/hub.js';
import type { MessageFacts, RealmEvent, Recipient } from '../bus/events.js';
import { realmUrl } from '../urls.js';
import type { Logger } from '../log.js';
import { guardedLookup, refusedLiteral } from '../net-guard.js';
import { SERVICE_VERSION } from '../version.js';
import type { RealmState } from '../realm/state.js';
import type { RawTo } from '../realm/messages/recipients.js';
import { BOT_TYPE, SERVICE_INTERFACE } from '../realm/people/bots.js';

export interface OutgoingWebhookTuning {
  /** Per request (the reference's OUTGOING_WEBHOOK_TIMEOUT_SECONDS: 10 s). */
  timeoutMs: number;
  /** Retries after a timeout or connection error (the reference's MAX_REQUEST_RETRIES: 3). */
  maxRetries: number;
  retryDelayMs: number;
  /** Requests in flight at once, server-wide. */
  concurrency: number;
  /** Deliveries waiting beyond this are dropped (and logged), so a dead bot cannot grow memory. */
  maxPending: number;
}

const DEFAULTS: OutgoingWebhookTuning = { timeoutMs: 10_000, maxRetries: 3, retryDelayMs: 1_000, concurrency: 8, maxPending: 10_000 };
/** Bytes of a bot's answer read (and parsed on the event loop) at most; a longer answer is cut and will not parse. */
const MAX_RESPONSE_BYTES = 256 * 1024;
const MENTION_RE = /<span class="user-mention" data-user-id="(\d+)">/g;

interface Job {
  realmId: number;
  botId: number;
  trigger: 'mention' | 'direct_message';
  message: Record<string, any>;
  failedTries: number;
}

/** A failure of one request: retried (timeouts, connection errors) or final. */
class DeliveryError extends Error {
  constructor(message: string, readonly retry: boolean, readonly owner: { status?: number; content?: string; detail?: string } = {}) {
    super(message);
  }
}

/** The answer's text, at most MAX_RESPONSE_BYTES of it. */
async function readCapped(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res) {
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (size >= MAX_RESPONSE_BYTES) break;
  }
  res.destroy();
  return Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES).toString('utf8');
}

/** A Markdown code block holding `text` verbatim: its fence is longer than any run of backticks inside. */
function codeBlock(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}\n${text}\n${fence}`;
}

/** Zulip's hash encoding of a narrow operand: percent-encoding with `.` for `%`. */
const hashEncode = (s: string) => encodeURIComponent(s).replace(/\./g, '%2E').replace(/%/g, '.');

function messageUrl(base: string, m: Record<string, any>): string {
  if (m.type === 'stream') return `${base}/#narrow/channel/${m.stream_id}-${hashEncode(String(m.display_recipient))}/topic/${hashEncode(String(m.subject))}/near/${m.id}`;
  const ids = (m.display_recipient as { id: number }[]).map((u) => u.id).join(',');
  return `${base}/#narrow/dm/${ids}-dm/near/${m.id}`;
}

/** Outgoing-webhook bots a message triggers: mentioned in a channel, or a recipient of a direct message. */
function triggered(state: RealmState, m: MessageFacts, users: Recipient[]): { botId: number; trigger: Job['trigger'] }[] {
  const sender = state.usersById.get(m.senderId);
  // As the reference: messages sent by bots trigger nothing (no loops between bots).
  if (!sender || sender.isBot) return [];
  const out: { botId: number; trigger: Job['trigger'] }[] = [];
  let mentioned: Set<number> | null = null;
  for (const s of state.people.bots.values()) {
    const bot = state.usersById.get(s.userId);
    if (!s.service || !bot?.isActive || bot.botType !== BOT_TYPE.OUTGOING_WEBHOOK) continue;
    if (m.kind === 'stream') {
      mentioned ??= mentionedIds(m.renderedContent, users);
      if (mentioned.has(bot.id)) out.push({ botId: bot.id, trigger: 'mention' });
    } else if (m.directRecipients.includes(bot.id)) {
      out.push({ botId: bot.id, trigger: 'direct_message' });
    }
  }
  return out;
}

/** Users mentioned by name (not silently) in the rendered message, and recipients the message flags as mentioned. */
function mentionedIds(html: string, users: Recipient[]): Set<number> {
  const ids = new Set<number>();
  for (const match of html.matchAll(MENTION_RE)) ids.add(Number(match[1]));
  if (html.includes('user-group-mention')) {
    for (const r of users) if (typeof r !== 'number' && r.flags.includes('mentioned')) ids.add(r.id);
  }
  return ids;
}

/** The content a Zulip-interface answer asks to post: `content` (or the older `response_string`), unless none is wanted. */
function zulipAnswer(answer: Record<string, unknown>): unknown {
  if (answer.response_not_required) return null;
  return 'response_string' in answer ? answer.response_string : answer.content;
}

export class OutgoingWebhooks {
  private readonly tuning: OutgoingWebhookTuning;
  private readonly pending: Job[] = [];
  private running = 0;
  private stopped = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<AbortController>();
  private readonly unsubscribe: () => void;
  /** Deliveries connect only to public addresses unless OUTGOING_WEBHOOKS_ALLOW_PRIVATE (checked when connecting). */
  private readonly lookup: ReturnType<typeof guardedLookup>;

  constructor(
    private deps: { hub: EventHub; realms: Realms; config: Config; log: Logger },
    tuning: Partial<OutgoingWebhookTuning> = {},
  ) {
    this.tuning = { ...DEFAULTS, ...tuning };
    this.lookup = guardedLookup(deps.config.outgoingWebhooks.allowPrivate);
    this.unsubscribe = deps.hub.subscribe((realmId, events) => this.onEvents(realmId, events), 'outgoing webhooks');
  }

  /** Runs inside the realm actor's publish: only a cheap look at the realm's service bots, then queued. */
  private onEvents(realmId: number, events: RealmEvent[]): void {
    const state = this.deps.realms.stateIfLoaded(realmId);
    if (!state || state.people.bots.size === 0) return;
    for (const { event, users } of events) {
      if (event.kind !== 'message') continue;
      for (const { botId, trigger } of triggered(state, event.facts, users)) {
        this.enqueue({ realmId, botId, trigger, message: event.message as Record<string, any>, failedTries: 0 });
      }
    }
  }

  private enqueue(job: Job): void {
    if (this.stopped) return;
    if (this.pending.length >= this.tuning.maxPending) {
      this.deps.log.warn({ botId: job.botId, messageId: job.message.id }, 'outgoing webhook dropped: too many pending');
      return;
    }
    this.pending.push(job);
    this.pump();
  }

  private pump(): void {
    while (!this.stopped && this.running < this.tuning.concurrency && this.pending.length > 0) {
      const job = this.pending.shift()!;
      this.running++;
      this.run(job)
        .catch((err) => this.deps.log.warn({ err, botId: job.botId }, 'outgoing webhook failed'))
        .finally(() => {
          this.running--;
          this.pump();
        });
    }
  }

  private async run(job: Job): Promise<void> {
    const state = this.deps.realms.stateIfLoaded(job.realmId);
    const bot = state?.usersById.get(job.botId);
    const service = state?.people.bots.get(job.botId)?.service;
    if (!state || !bot?.isActive || !service) return;
    const m = job.message;
    let content: string | null;
    try {
      if (service.interface === SERVICE_INTERFACE.SLACK) {
        if (m.type !== 'stream') throw new DeliveryError("Slack outgoing webhooks don't support direct messages.", false);
        const form = new URLSearchParams({
          token: service.token,
          team_id: `T${state.realm.id}`,
          team_domain: new URL(realmUrl(this.deps.config, state.realm.stringId)).hostname,
          channel_id: `C${m.stream_id}`,
          channel_name: String(m.display_recipient),
          thread_ts: String(m.timestamp),
          timestamp: String(m.timestamp),
          user_id: `U${m.sender_id}`,
          user_name: String(m.sender_full_name),
          text: String(m.content),
          trigger_word: job.trigger,
          service_id: String(bot.id),
        });
        content = await this.post(service.baseUrl, form, (answer) => answer.text);
      } else {
        const payload = { data: m.content, token: service.token, message: m, bot_email: bot.email, bot_full_name: bot.fullName, trigger: job.trigger };
        content = await this.post(service.baseUrl, payload, zulipAnswer);
      }
    } catch (err) {
      if (!(err instanceof DeliveryError)) throw err;
      if (this.stopped) return;
      if (err.retry && ++job.failedTries <= this.tuning.maxRetries) return this.retryLater(job);
      await this.reply(job, `Failure! ${err.retry ? 'Bot is unavailable' : err.message}`);
      if (err.retry || Object.keys(err.owner).length > 0) await this.notifyOwner(job, err.retry ? { detail: err.message } : err.owner);
      return;
    }
    if (content !== null) await this.reply(job, content);
  }

  private retryLater(job: Job): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.enqueue(job);
    }, this.tuning.retryDelayMs * job.failedTries);
    timer.unref();
    this.timers.add(timer);
  }

  /** One request; the answer's content to post back, or null when none is wanted. */
  private async post(url: string, payload: Record<string, unknown> | URLSearchParams, answerContent: (answer: Record<string, unknown>) => unknown): Promise<string | null> {
    const form = payload instanceof URLSearchParams;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), this.tuning.timeoutMs);
    this.inFlight.add(abort);
    let status: number;
    let text: string;
    try {
      const res = await this.request(url, form ? 'application/x-www-form-urlencoded' : 'application/json', form ? payload.toString() : JSON.stringify(payload), abort.signal);
      status = res.statusCode ?? 0;
      text = await readCapped(res);
    } catch {
      if (abort.signal.aborted) throw new DeliveryError(`Request timed out after ${this.tuning.timeoutMs / 1000} seconds.`, true);
      throw new DeliveryError('A connection error occurred. Is my bot server down?', true);
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(abort);
    }
    if (status < 200 || status > 299) {
      throw new DeliveryError(`Third party responded with ${status}`, false, { status, content: text });
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw this.badAnswer('Invalid JSON in response', text);
    }
    if (body === '') return null;
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw this.badAnswer('Invalid response format', text);
    const content = answerContent(body as Record<string, unknown>);
    if (content === undefined || content === null) return null;
    const s = String(content);
    return s.trim() === '' ? null : s;
  }

  /** POSTs without following redirects; a URL naming a refused address fails as a connection error would. */
  private request(url: string, contentType: string, body: string, signal: AbortSignal): Promise<IncomingMessage> {
    const parsed = new URL(url);
    const client = parsed.protocol === 'https:' ? https : parsed.protocol === 'http:' ? http : null;
    if (!client || refusedLiteral(parsed, this.deps.config.outgoingWebhooks.allowPrivate)) return Promise.reject(new Error('address not allowed'));
    return new Promise((resolve, reject) => {
      const headers = { 'content-type': contentType, 'content-length': Buffer.byteLength(body), 'user-agent': `ZulipOutgoingWebhook/${SERVICE_VERSION}` };
      const req = client.request(parsed, { method: 'POST', headers, lookup: this.lookup, signal }, resolve);
      req.on('error', reject);
      req.end(body);
    });
  }

  private badAnswer(msg: string, text: string): DeliveryError {
    const detail = `The outgoing webhook server attempted to send a message in Zulip, but that request resulted in the following error:\n> ${msg}`;
    return new DeliveryError(msg, false, { content: text, detail });
  }

  /** The bot answers in the conversation that triggered it. */
  private async reply(job: Job, content: string): Promise<void> {
    const m = job.message;
    const to = m.type === 'stream' ? m.stream_id : (m.display_recipient as { id: number }[]).map((u) => u.id);
    await this.send(job, { type: m.type === 'stream' ? 'stream' : 'direct', to, topic: m.subject, content });
  }

  /** The reference's notify_bot_owner: a direct message from the bot to its owner. */
  private async notifyOwner(job: Job, why: { status?: number; content?: string; detail?: string }): Promise<void> {
    const state = this.deps.realms.stateIfLoaded(job.realmId);
    const bot = state?.usersById.get(job.botId);
    if (!state || !bot || bot.botOwnerId === null) return;
    let text = `[A message](${messageUrl(realmUrl(this.deps.config, state.realm.stringId), job.message)}) to your bot @_**${bot.fullName}** triggered an outgoing webhook.`;
    if (why.detail) text += `\n${why.detail}`;
    else if (why.status) text += `\nThe webhook got a response with status code *${why.status}*.`;
    if (why.content) text += `\nThe response contains the following payload:\n${codeBlock(why.content.slice(0, 1000))}`;
    await this.send(job, { type: 'direct', to: [bot.botOwnerId], content: text });
  }

  private async send(job: Job, msg: { type: 'stream' | 'direct'; to: RawTo; topic?: string; content: string }): Promise<void> {
    const state = this.deps.realms.stateIfLoaded(job.realmId);
    if (!state) return;
    const realm = await this.deps.realms.get(job.realmId);
    await realm
      .dispatch('messages.send', { senderId: job.botId, ...msg, client: 'OutgoingWebhookResponse', realmUrl: realmUrl(this.deps.config, state.realm.stringId) })
      .catch((err) => this.deps.log.info({ err: (err as Error).message, botId: job.botId }, 'outgoing webhook answer refused'));
  }

  /** Stops taking deliveries and abandons those waiting or in flight (they live only in memory). */
  stop(): void {
    this.stopped = true;
    this.unsubscribe();
    this.pending.length = 0;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const a of this.inFlight) a.abort();
  }
}
