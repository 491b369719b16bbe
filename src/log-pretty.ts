// Human-readable log lines for a terminal (pino-pretty is not installed): time, level, message, then the fields;
// an error's stack on the lines below.
import type { Writable } from 'node:stream';

const LEVELS: Record<number, [string, string]> = {
  10: ['TRACE', '\x1b[90m'],
  20: ['DEBUG', '\x1b[36m'],
  30: ['INFO ', '\x1b[32m'],
  40: ['WARN ', '\x1b[33m'],
  50: ['ERROR', '\x1b[31m'],
  60: ['FATAL', '\x1b[35m'],
};
const RESET = '\x1b[0m';
const DIM = '\x1b[2m';
const OMIT = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'service', 'err']);

function fieldText(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  return JSON.stringify(v);
}

/** One pino JSON line as a readable line (or several, with a stack); unparsable input passes through. */
export function formatPretty(line: string, color: boolean): string {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(line);
  } catch {
    return line;
  }
  const [name, hue] = LEVELS[o.level as number] ?? [String(o.level), ''];
  const time = typeof o.time === 'number' ? new Date(o.time).toISOString().slice(11, 23) : '';
  const fields = Object.entries(o)
    .filter(([k]) => !OMIT.has(k))
    .map(([k, v]) => `${k}=${fieldText(v)}`)
    .join(' ');
  const c = (code: string, s: string) => (color ? code + s + RESET : s);
  let out = `${c(DIM, time)} ${c(hue, name)} ${o.msg ?? ''}${fields ? ' ' + c(DIM, fields) : ''}\n`;
  const err = o.err as { type?: string; message?: string; stack?: string } | undefined;
  if (err) out += (err.stack ?? `${err.type ?? 'Error'}: ${err.message ?? ''}`).replace(/^/gm, '    ') + '\n';
  return out;
}

/** A pino destination writing readable lines to `out`. */
export function prettyDestination(out: Writable & { isTTY?: boolean }): { write(chunk: string): void } {
  const color = !!out.isTTY && !process.env.NO_COLOR;
  return {
    write(chunk: string) {
      out.write(chunk.split('\n').filter(Boolean).map((l) => formatPretty(l, color)).join(''));
    },
  };
}
