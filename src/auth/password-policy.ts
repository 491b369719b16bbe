// The reference's password policy: at least password_min_length and at most password_max_length characters,
// and at least password_min_guesses guesses by the zxcvbn estimator. Estimates run in one worker thread, one at
// a time, each within a time budget counted from when the worker has loaded its dictionaries (a worker past it
// is replaced, and that check answers 503); at most MAX_WAITING wait for it.
import { Worker } from 'node:worker_threads';
import { errors } from '../errors.js';
import { LIMITS } from '../limits.js';
import { hashPassword } from './secrets.js';

/** An estimate taking longer than this is abandoned (503: the password could not be checked). */
export const ESTIMATE_BUDGET_MS = 5_000;
const MAX_WAITING = 64;

interface Pending {
  id: number;
  password: string;
  resolve(guesses: number): void;
  reject(err: unknown): void;
}

class Estimator {
  private worker: Worker | null = null;
  /** The worker has loaded its dictionaries. */
  private ready = false;
  private queue: Pending[] = [];
  private current: { job: Pending; timer: NodeJS.Timeout } | null = null;
  private nextId = 1;

  guesses(password: string): Promise<number> {
    if (this.queue.length >= MAX_WAITING) return Promise.reject(errors.unavailable('Too many password checks at once; try again'));
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, password, resolve, reject });
      this.next();
    });
  }

  private start(): Worker {
    const w = new Worker(new URL('./password-strength.worker.js', import.meta.url));
    w.on('message', (m: { ready?: true; id?: number; guesses?: number }) => {
      if (m.ready) {
        this.ready = true;
        this.next();
        return;
      }
      const { id, guesses } = m as { id: number; guesses: number };
      if (this.current?.job.id !== id) return;
      clearTimeout(this.current.timer);
      const { job } = this.current;
      this.current = null;
      job.resolve(guesses);
      this.next();
    });
    w.on('error', (err) => this.fail(w, err));
    w.on('exit', () => this.fail(w, new Error('password strength worker exited')));
    return w;
  }

  /** The worker died or overran: the job it had fails, a new worker takes the rest (all fail if it never loaded). */
  private fail(w: Worker, err: unknown): void {
    if (this.worker !== w) return;
    const loaded = this.ready;
    this.worker = null;
    this.ready = false;
    const cur = this.current;
    this.current = null;
    if (cur) {
      clearTimeout(cur.timer);
      cur.job.reject(err);
    }
    if (!loaded) for (const job of this.queue.splice(0)) job.reject(err);
    this.next();
  }

  /** Starts the next estimate; the worker keeps the process alive only while it has one (listeners ref it). */
  private next(): void {
    if (this.current) return;
    if (this.queue.length === 0) {
      this.worker?.unref();
      return;
    }
    const w = (this.worker ??= this.start());
    w.ref();
    if (!this.ready) return;
    const job = this.queue.shift()!;
    const timer = setTimeout(() => {
      this.fail(w, errors.unavailable('The password could not be checked in time; try again'));
      void w.terminate();
    }, ESTIMATE_BUDGET_MS);
    timer.unref();
    this.current = { job, timer };
    w.postMessage({ id: job.id, password: job.password });
  }
}

const estimator = new Estimator();

/** Throws the reference's "The password is too weak." unless `password` meets the policy. */
export async function checkPasswordStrength(password: string): Promise<void> {
  const length = [...password].length;
  if (length < LIMITS.password_min_length || length > LIMITS.password_max_length || password === '') throw errors.passwordTooWeak();
  if ((await estimator.guesses(password)) < LIMITS.password_min_guesses) throw errors.passwordTooWeak();
}

/** A new password's hash, once it meets the policy. */
export async function hashNewPassword(password: string, logN: number): Promise<string> {
  await checkPasswordStrength(password);
  return hashPassword(password, logN);
}
