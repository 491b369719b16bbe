// Structured JSON logs (pino). Secrets never go through here: request logs carry no headers or bodies.
// In a terminal (LOG_FORMAT=auto) the same records are printed as readable lines (pino-pretty, written synchronously
// so the last lines before an exit are not lost; loaded only for such a logger, not at import).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pino, type Logger } from 'pino';

const require = createRequire(import.meta.url);

export type { Logger };

interface Destination {
  write(line: string): unknown;
}

/** A destination that prints each JSON record as a readable line (colours only on a terminal). */
function prettyDestination(out: Destination, colorize: boolean): Destination {
  const { prettyFactory } = require('pino-pretty') as typeof import('pino-pretty');
  const format = prettyFactory({ colorize, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' });
  return { write: (line: string) => out.write(format(line)) };
}

/** Fields never written to the log, at the top of a line or one level down. */
const SECRET_FIELDS = ['password', 'old_password', 'new_password', 'passwordHash', 'api_key', 'apiKey', 'authorization', 'token', 'key'];

/** `destination` (tests) receives the lines instead of stdout. */
export function createLogger(level: string, format: 'json' | 'pretty' | 'auto' = 'json', destination?: Destination): Logger {
  const pretty = format === 'pretty' || (format === 'auto' && process.stdout.isTTY === true);
  const options = {
    level,
    base: { service: 'palaver' },
    redact: { paths: SECRET_FIELDS.flatMap((f) => [f, `*.${f}`]), censor: '[redacted]' },
  };
  if (!pretty) return destination ? pino(options, destination) : pino(options);
  const colorize = !destination && process.stdout.isTTY === true && !process.env.NO_COLOR;
  return pino(options, prettyDestination(destination ?? process.stdout, colorize));
}

/** SIGHUP: the level named in `file` (one word), or `fallback` when the file is absent; an unknown level is refused. */
export function reloadLogLevel(log: Logger, file: string, fallback: string): { level: string; changed: boolean } {
  let wanted = fallback;
  try {
    wanted = readFileSync(file, 'utf8').trim() || fallback;
  } catch {
    // No file: back to the level the process started with.
  }
  if (!(wanted in log.levels.values)) throw new Error(`unknown log level ${JSON.stringify(wanted)} in ${file}`);
  const changed = log.level !== wanted;
  log.level = wanted;
  return { level: wanted, changed };
}
