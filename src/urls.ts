// URLs of realms as clients should use them.
import type { Config } from './config.js';

export function realmUrl(config: Config, stringId: string): string {
  const defaultPort = config.externalScheme === 'https' ? 443 : 80;
  const port = config.port === defaultPort || config.port === 0 ? '' : `:${config.port}`;
  const host = stringId === '' ? config.rootDomain : `${stringId}.${config.rootDomain}`;
  return `${config.externalScheme}://${host}${port}`;
}
