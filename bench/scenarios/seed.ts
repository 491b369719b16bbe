// Prepares a realm through the API: users (POST /users, then their API keys from fetch_api_key).
import { forEachBounded } from '../lib/bounded.js';
import { login, request, type Creds } from '../lib/client.js';
import type { ScenarioContext } from './types.js';

function createUser(ctx: ScenarioContext, email: string, password: string, i: number) {
  return request(ctx.target.url, 'POST', '/users', { auth: ctx.owner, form: { email, password, full_name: `Bench User ${i}` } });
}

/**
 * A number written in consonants, for passwords the server's strength estimator (zxcvbn) checks fast: no digits, which
 * its l33t matching tries as letters (0 for o, 1 for i or l, 3 for e, …) in every combination — one estimate of
 * `pw-mix0mwvfnxp1-5` took 100–280 ms of the server's CPU, of `pw-fddkhkjndmhv-m` 4 ms — and no vowels, so no
 * dictionary words (both estimated at 10^17 guesses; the policy asks 10^4).
 */
export function plainLetters(n: number): string {
  const letters = 'dfhjkmnpqrvwy';
  return n
    .toString(letters.length)
    .split('')
    .map((d) => letters[parseInt(d, letters.length)])
    .join('');
}

/** A seeded user: its credentials and the ID `POST /users` answered. */
export interface SeededUser extends Creds {
  userId: number;
}

export async function seedUsers(ctx: ScenarioContext, count: number, prefix = 'bench'): Promise<SeededUser[]> {
  const out: SeededUser[] = new Array(count);
  const stamp = Date.now();
  const run = `${prefix}${stamp.toString(36)}`;
  let done = 0;
  await forEachBounded(count, 16, async (i) => {
    const email = `${run}-${i}@bench.test`;
    const password = `pw-${plainLetters(stamp)}-${plainLetters(i)}`;
    let r = await createUser(ctx, email, password, i);
    // 503 "The password could not be checked in time; try again": the server's password-strength check timed
    // out (a loaded machine) before anything was written; the bench tries again, as the message says.
    for (let attempt = 1; r.status === 503 && attempt <= 5; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 1000 * attempt));
      r = await createUser(ctx, email, password, i);
    }
    if (r.status !== 200) throw new Error(`POST /users failed: ${JSON.stringify(r.body)}`);
    out[i] = { ...(await login(ctx.target.url, email, password)), userId: r.body.user_id };
    if (++done % 100 === 0) ctx.progress(`created ${done}/${count} users`);
  });
  return out;
}
