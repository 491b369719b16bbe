// Password hashing (scrypt, memory-hard), API keys, and constant-time comparison.
import { createHash, randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

function scrypt(password: string, salt: Buffer, keylen: number, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCb(password, salt, keylen, opts, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

const KEY_LENGTH = 32;

function options(logN: number): ScryptOptions {
  const N = 2 ** logN;
  return { N, r: 8, p: 1, maxmem: 256 * N * 8 };
}

/** `scrypt$<logN>$<salt b64>$<hash b64>` */
export async function hashPassword(password: string, logN = 15): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEY_LENGTH, options(logN));
  return `scrypt$${logN}$${salt.toString('base64')}$${key.toString('base64')}`;
}

const DUMMY_HASH_PROMISE = new Map<number, Promise<string>>();

/** Verifies a password. With no stored hash, does the same work against a dummy so timing does not tell. */
export async function verifyPassword(password: string, stored: string | null, logN = 15): Promise<boolean> {
  let target = stored;
  if (!target) {
    if (!DUMMY_HASH_PROMISE.has(logN)) DUMMY_HASH_PROMISE.set(logN, hashPassword(randomBytes(12).toString('hex'), logN));
    target = await DUMMY_HASH_PROMISE.get(logN)!;
  }
  const parts = target.split('$');
  if (parts.length !== 4 || parts[0] !== 'scrypt') return false;
  const n = Number(parts[1]);
  if (!Number.isInteger(n) || n < 10 || n > 20) return false;
  const salt = Buffer.from(parts[2]!, 'base64');
  const expected = Buffer.from(parts[3]!, 'base64');
  const key = await scrypt(password, salt, expected.length, options(n));
  return timingSafeEqual(key, expected) && stored !== null;
}

const KEY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A random string over letters and digits, without modulo bias. */
export function randomToken(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248 && out.length < length) out += KEY_ALPHABET[b % 62];
    }
  }
  return out;
}

export function generateApiKey(): string {
  return randomToken(32);
}

export function generatePassword(): string {
  return randomToken(20);
}

/** Compares two secrets in time independent of where they differ and of their lengths. */
export function secretsEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}
