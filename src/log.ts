// Structured JSON logs (pino). Secrets never go through here: request logs carry no headers or bodies.
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'palaver' },
    redact: { paths: ['password', 'api_key', 'apiKey', '*.password', '*.api_key', '*.apiKey', 'authorization'], censor: '[redacted]' },
  });
}
