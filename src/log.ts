// Structured JSON logs (pino). Secrets never go through here: request logs carry no headers or bodies.
// In a terminal (LOG_FORMAT=auto) the same records are printed as readable lines.
import { readFileSync } from 'node:fs';
import { pino, type Logger } from 'pino';
import { prettyDestination } from './log-pretty.js';

export type { Logger };

/** `destination` (tests) receives the JSON lines instead of stdout. */
export function createLogger(level: string, format: 'json' | 'pretty' | 'auto' = 'json', destination?: { write(line: string): void }): Logger {
  const pretty = format === 'pretty' || (format === 'auto' && process.stdout.isTTY === true);
  const options = {
    level,
    base: { service: 'palaver' },
    redact: { paths: ['password', 'api_key', 'apiKey', '*.password', '*.api_key', '*.apiKey', 'authorization'], censor: '[redacted]' },
  };
  if (destination) return pino(options, destination);
  return pretty ? pino(options, prettyDestination(process.stdout)) : pino(options);
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
