// Entry point: start the server from the environment, stop it gracefully on SIGTERM or SIGINT, reload the log level on SIGHUP.
import { loadConfig } from './config.js';
import { createLogger, reloadLogLevel } from './log.js';
import { startServer } from './server.js';

const config = loadConfig();
const log = createLogger(config.logLevel, config.logFormat);

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
  process.on('SIGHUP', () => {
    try {
      const r = reloadLogLevel(log, config.logLevelFile, config.logLevel);
      server.services.operators.syncLifecycleLog();
      log.info({ logLevel: r.level, file: config.logLevelFile }, 'log level reloaded');
    } catch (err) {
      log.error({ err }, 'log level not reloaded');
    }
  });
} catch (err) {
  log.fatal({ err }, 'failed to start');
  process.exit(1);
}
