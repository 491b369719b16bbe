// Rate limits: token buckets per user (authenticated calls), per IP (unauthenticated ones) and per IP for
// password attempts; answers carry the X-RateLimit-* headers, and a refusal is a 429 RATE_LIMIT_HIT.
import { errors } from '../errors.js';
import { CONFIRMATION_MAIL_RULES, type RateLimitConfig, type RateRule } from '../rate-rules.js';

interface Bucket {
  tokens: number;
  updated: number;
}

export interface RateDecision {
  headers: Record<string, string>;
}

/** Cluster mode: tokens this process took since the other processes were last told, by family and key. */
type Takes = { pending: Map<string, Map<string, number>> | null };

/** One family of buckets (one rule); keys are user IDs or addresses. */
class Buckets {
  private readonly buckets = new Map<string, Bucket>();
  constructor(private readonly rule: RateRule, private readonly now: () => number, private readonly family = '', private readonly takes: Takes = { pending: null }) {}

  private get perMs(): number {
    return this.rule.limit / (this.rule.windowSeconds * 1000);
  }

  /** Takes a token for `key`; throws the 429 when none is left. */
  take(key: string): RateDecision {
    const now = this.now();
    const b = this.refilled(this.buckets.get(key), now);
    this.buckets.set(key, b);
    this.refuseIfEmpty(b, now);
    b.tokens -= 1;
    const pending = this.takes.pending;
    if (pending) {
      let family = pending.get(this.family);
      if (!family) pending.set(this.family, (family = new Map()));
      family.set(key, (family.get(key) ?? 0) + 1);
    }
    return {
      headers: {
        'X-RateLimit-Limit': String(this.rule.limit),
        'X-RateLimit-Remaining': String(Math.floor(b.tokens)),
        'X-RateLimit-Reset': String(this.resetSeconds(b, now)),
      },
    };
  }

  /** Tokens another process of the cluster took for `key` (never below one window's worth of debt). */
  spend(key: string, n: number): void {
    const b = this.refilled(this.buckets.get(key), this.now());
    b.tokens = Math.max(-this.rule.limit, b.tokens - n);
    this.buckets.set(key, b);
  }

  /** Throws the 429 when `key` has no token left, taking none (a key never charged has a full bucket). */
  check(key: string): void {
    const b = this.buckets.get(key);
    if (!b) return;
    const now = this.now();
    this.refuseIfEmpty(this.refilled({ ...b }, now), now);
  }

  private refilled(b: Bucket | undefined, now: number): Bucket {
    if (!b) return { tokens: this.rule.limit, updated: now };
    b.tokens = Math.min(this.rule.limit, b.tokens + (now - b.updated) * this.perMs);
    b.updated = now;
    return b;
  }

  private resetSeconds(b: Bucket, now: number): number {
    return Math.ceil((now + (this.rule.limit - b.tokens) / this.perMs) / 1000);
  }

  private refuseIfEmpty(b: Bucket, now: number): void {
    if (b.tokens >= 1) return;
    const retryAfter = (1 - b.tokens) / this.perMs / 1000;
    const e = errors.rateLimited(Number(retryAfter.toFixed(3)));
    Object.assign(e.headers, {
      'Retry-After': String(Math.ceil(retryAfter)),
      'X-RateLimit-Limit': String(this.rule.limit),
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(this.resetSeconds(b, now)),
    });
    throw e;
  }

  /** Forgets buckets that have refilled completely (they behave exactly like absent ones). */
  sweep(): void {
    const now = this.now();
    for (const [k, b] of this.buckets) if (b.tokens + (now - b.updated) * this.perMs >= this.rule.limit) this.buckets.delete(k);
  }

  get size(): number {
    return this.buckets.size;
  }
}

function credentialKey(address: string, account: string): string {
  return account === '' ? address : `${address} ${account.slice(0, 254)}`;
}

export class RateLimiter {
  private readonly user: Buckets;
  private readonly ip: Buckets;
  private readonly password: Buckets;
  private readonly mail: Buckets[];
  private readonly timer: NodeJS.Timeout;
  private readonly takes: Takes = { pending: null };

  constructor(private readonly config: RateLimitConfig, now: () => number = Date.now) {
    this.user = new Buckets(config.user, now, 'user', this.takes);
    this.ip = new Buckets(config.ip, now, 'ip', this.takes);
    this.password = new Buckets(config.passwordAttempts, now, 'password', this.takes);
    this.mail = (config.confirmationMail ?? CONFIRMATION_MAIL_RULES).map((rule, i) => new Buckets(rule, now, `mail${i}`, this.takes));
    this.timer = setInterval(() => this.sweep(), 60_000);
    this.timer.unref();
  }

  /** An authenticated call by a user, or an unauthenticated one from an address. */
  request(userId: number | null, address: string): RateDecision | null {
    if (!this.config.enabled) return null;
    return userId !== null ? this.user.take(String(userId)) : this.ip.take(address);
  }

  /** A password attempt (fetch_api_key, old_password) from an address: a stricter rule on top of the others. */
  passwordAttempt(address: string): void {
    if (this.config.enabled) this.password.take(address);
  }

  /**
   * Before checking a credential that is not a password (an API key per `account`, the operator token): refused
   * while the address (and account) has spent its password-attempt budget on failures, so guesses stay bounded
   * whether they are right or wrong; a success costs nothing.
   */
  credentialCheck(address: string, account = ''): void {
    // No key is made while no address has failed at all (every request with credentials comes here).
    if (this.config.enabled && this.password.size > 0) this.password.check(credentialKey(address, account));
  }

  /**
   * A credential that did not match: spends one password attempt of the address (and account), and one request of
   * the address's unauthenticated budget, which bounds the failures (and so the buckets) one address can make.
   * The refusal is the caller's.
   */
  credentialFailed(address: string, account = ''): void {
    if (!this.config.enabled) return;
    for (const [buckets, key] of [[this.password, credentialKey(address, account)], [this.ip, address]] as const) {
      try {
        buckets.take(key);
      } catch {
        // Already empty: the next check refuses.
      }
    }
  }

  /** Before mailing a confirmation link to `email`: the 429 once any of its rules is spent, else one of each is taken. */
  confirmationMail(email: string): void {
    if (!this.config.enabled) return;
    const key = email.toLowerCase();
    for (const b of this.mail) b.check(key);
    for (const b of this.mail) b.take(key);
  }

  /**
   * Cluster mode: the tokens taken here since the last call, by family and key, for the other processes (which
   * hand them to spentElsewhere), so a limit holds across the cluster rather than once per process.
   */
  takenHere(): [string, string, number][] {
    const pending = this.takes.pending;
    this.takes.pending = new Map();
    const out: [string, string, number][] = [];
    for (const [family, keys] of pending ?? []) for (const [key, n] of keys) out.push([family, key, n]);
    return out;
  }

  spentElsewhere(family: string, key: string, n: number): void {
    const buckets = family === 'user' ? this.user : family === 'ip' ? this.ip : family === 'password' ? this.password : this.mail[Number(family.slice(4))];
    // Only a positive count: a negative one would hand tokens back.
    if (buckets && Number.isFinite(n) && n > 0) buckets.spend(key, n);
  }

  sweep(): void {
    for (const b of [this.user, this.ip, this.password, ...this.mail]) b.sweep();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  get trackedKeys(): number {
    return [this.user, this.ip, this.password, ...this.mail].reduce((n, b) => n + b.size, 0);
  }
}
