// How an actor looks to an operator: its kind, its state as a string, and a JSON-safe copy of its persisted snapshot.
import type { AnyActorRef } from 'xstate';

/** The machine id (`createMachine({ id })`) of a state-machine actor; undefined for promise, callback and other actors. */
export function machineId(ref: AnyActorRef): string | undefined {
  const logic = (ref as unknown as { logic?: { id?: unknown; root?: unknown } }).logic;
  return logic && logic.root !== undefined && typeof logic.id === 'string' ? logic.id : undefined;
}

/** `ready.writing` for nested states, `a.x,b.y` for parallel ones. */
export function stateString(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || typeof value !== 'object') return String(value);
  return Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => {
      const inner = stateString(v);
      return inner.includes(',') ? `${k}.(${inner})` : `${k}.${inner}`;
    })
    .join(',');
}

/** Fields never shown, whatever actor holds them. */
const SECRET_KEY = /api_?key|password|secret|token|hash/i;

export interface SafeJsonOptions {
  maxDepth: number;
  maxItems: number;
}

/**
 * A copy of `value` that JSON can hold: Maps, Sets, actor refs, functions, class instances holding connections,
 * circular references, deep nesting and long collections are replaced by short descriptions; secrets are redacted.
 */
export function toSafeJson(value: unknown, opts: SafeJsonOptions = { maxDepth: 8, maxItems: 200 }): unknown {
  const seen = new WeakSet<object>();
  const walk = (v: unknown, depth: number): unknown => {
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
    if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'undefined') return undefined;
    if (typeof v === 'function') return `[function ${v.name || 'anonymous'}]`;
    if (typeof v === 'symbol') return v.toString();
    const o = v as Record<string, unknown>;
    if (seen.has(o)) return '[circular]';
    if (depth >= opts.maxDepth) return '[…]';
    if (v instanceof Date) return v.toISOString();
    if (Buffer.isBuffer(v) || v instanceof Uint8Array) return `[${v.byteLength} bytes]`;
    if (typeof o.send === 'function' && typeof o.getSnapshot === 'function' && typeof o.id === 'string') return `[actor ${o.id}]`;
    // A database handle or pool: what it is, never its configuration (which may hold a password).
    if ('$pool' in o || ('query' in o && 'connect' in o)) return '[database]';
    seen.add(o);
    try {
      const limit = <T>(items: T[], f: (x: T) => unknown): unknown[] => {
        const out = items.slice(0, opts.maxItems).map(f);
        if (items.length > opts.maxItems) out.push(`[… ${items.length - opts.maxItems} more]`);
        return out;
      };
      if (Array.isArray(v)) return limit(v, (x) => walk(x, depth + 1));
      if (v instanceof Set) return limit([...v], (x) => walk(x, depth + 1));
      if (v instanceof Map) return limit([...v], ([k, x]) => [walk(k, depth + 1), walk(x, depth + 1)]);
      const out: Record<string, unknown> = {};
      const keys = Object.keys(o);
      for (const k of keys.slice(0, opts.maxItems)) out[k] = SECRET_KEY.test(k) ? '[redacted]' : walk(o[k], depth + 1);
      if (keys.length > opts.maxItems) out['…'] = `${keys.length - opts.maxItems} more keys`;
      return out;
    } finally {
      seen.delete(o);
    }
  };
  return walk(value, 0);
}
