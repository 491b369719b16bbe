// Rate-limit rules as configured: the numbers the limiter in http/rate-limit.ts enforces, and their parsing from
// the environment (config.ts reads them; the limiter itself lives with the HTTP layer).

export interface RateRule {
  /** Requests allowed per window. */
  limit: number;
  windowSeconds: number;
}

export interface RateLimitConfig {
  user: RateRule;
  ip: RateRule;
  passwordAttempts: RateRule;
  /** Confirmation mail to one email address; every rule applies (default CONFIRMATION_MAIL_RULES). */
  confirmationMail?: RateRule[];
  enabled: boolean;
}

/** The reference's per-email-address rules for mail sent on request (password_reset_form_by_email): 2 an hour, 5 a day. */
export const CONFIRMATION_MAIL_RULES: RateRule[] = [
  { limit: 2, windowSeconds: 3600 },
  { limit: 5, windowSeconds: 86_400 },
];

/** `200/60` → 200 requests per 60 seconds. */
export function parseRule(raw: string | undefined, fallback: RateRule): RateRule {
  if (!raw) return fallback;
  const m = /^(\d+)\s*\/\s*(\d+)$/.exec(raw.trim());
  if (!m || Number(m[2]) === 0) throw new Error(`a rate limit is "<requests>/<seconds>", got ${JSON.stringify(raw)}`);
  return { limit: Number(m[1]), windowSeconds: Number(m[2]) };
}
