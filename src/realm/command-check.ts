// The proof that realm commands are plain data. Their inputs and answers are messages: between processes they
// travel as msgpack (src/msgpack.ts), so each must come back from a msgpack round trip deep-equal to what was
// sent. A Map comes back as an object, a Set or a typed array as an array or Buffer, a class instance without its
// prototype (its methods), a function as undefined, a symbol or a huge bigint not at all: each fails here. A
// dictionary without a prototype (the params' `dict`, safe for any key) is plain data: it arrives as an object of
// the same own keys, except a `__proto__` key, which msgpack renames: that fails here too.
// The realm handle runs this on every command when PALAVER_CHECK_COMMANDS=1 (the test helpers set it), so the
// whole suite proves every command it exercises; production does not pay for it.
import { isDeepStrictEqual } from 'node:util';
import { pack, unpack } from '../msgpack.js';

/** What of a command is checked. */
export type CommandPart = 'input' | 'answer';

/** Throws unless `value` survives a msgpack round trip unchanged (same values, same prototypes). */
export function assertPlainData(kind: string, part: CommandPart, value: unknown): void {
  let back: unknown;
  try {
    back = unpack(pack(value));
  } catch (err) {
    throw notPlain(kind, part, `msgpack refuses it (${err instanceof Error ? err.message : String(err)})`);
  }
  const sent = withPrototypes(value);
  if (!isDeepStrictEqual(back, sent)) throw notPlain(kind, part, `${firstDifference(sent, back, '')} changes through msgpack`);
}

/** `value` with its dictionaries without a prototype as plain objects of the same own keys (what msgpack makes). */
function withPrototypes(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(withPrototypes);
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== null && proto !== Object.prototype) return value;
  const out = {};
  for (const [key, v] of Object.entries(value)) Object.defineProperty(out, key, { value: withPrototypes(v), enumerable: true, writable: true, configurable: true });
  return out;
}

function notPlain(kind: string, part: CommandPart, why: string): Error {
  return new Error(`realm command ${kind}: its ${part} is not plain data: ${why}`);
}

/** Where `sent` and `back` first differ, as a path (`.user.name`, `[3]`), with what was sent there. */
function firstDifference(sent: unknown, back: unknown, path: string): string {
  if (typeof sent === 'object' && sent !== null && typeof back === 'object' && back !== null) {
    if (Object.getPrototypeOf(sent) === Object.getPrototypeOf(back)) {
      for (const key of new Set([...Object.keys(sent), ...Object.keys(back)])) {
        const a = (sent as Record<string, unknown>)[key];
        const b = (back as Record<string, unknown>)[key];
        if (!isDeepStrictEqual(a, b)) return firstDifference(a, b, Array.isArray(sent) ? `${path}[${key}]` : `${path}.${key}`);
      }
    }
  }
  const what = typeof sent === 'object' && sent !== null ? (sent.constructor?.name ?? 'an object without a prototype') : typeof sent;
  return `${path || 'the value'} (${what})`;
}
