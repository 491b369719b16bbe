// Entry point: start the server from the environment and stop it gracefully on SIGTERM or SIGINT.
import { loadConfig } from './config.js';
import { createLogger } from './log.js';
import { startServer } from './server.js';

const config = loadConfig();
const log = createLogger(config.logLevel);

try {
  const server = await startServer(config, { log });
  const b = server.bootstrapped;
  if (b?.generatedPassword) {
    // Printed once, on the terminal only; the file in DATA_DIR keeps it.
    process.stdout.write(
      `\nCreated the organization owner ${b.email}\n  password: ${b.generatedPassword}\n` +
        `  credentials saved to ${b.credentialsFile} (readable only by you)\n\n`,
    );
  }
  let signalled = false;
  const shutdown = (signal: string) => {
    if (signalled) return;
    signalled = true;
    log.info({ signal }, 'shutting down');
    const hardStop = setTimeout(() => {
      log.error('shutdown deadline passed; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs * 2);
    hardStop.unref();
    server.stop().then(
      () => process.exit(0),
      (err) => {
        log.error({ err }, 'error during shutdown');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
} catch (err) {
  log.fatal({ err }, 'failed to start');
  process.exit(1);
}
