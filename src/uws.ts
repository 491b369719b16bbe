// Loads uWebSockets.js (refusing its slow pure-JS fallback unless explicitly allowed) and listens exclusively.
import { createRequire } from 'node:module';
import type * as UwsTypes from 'uWebSockets.js';

const require = createRequire(import.meta.url);

export interface LoadedUws {
  uws: typeof UwsTypes;
  native: boolean;
}

/** uSockets' listen option (ListenOptions in the type declarations) that leaves SO_REUSEPORT unset. */
const LIBUS_LISTEN_EXCLUSIVE_PORT = 1;

/** Listens on host:port exclusively: uWebSockets.js otherwise sets SO_REUSEPORT, and a second server started on a
 *  taken port (by mistake, or an old version still running) would share it, the kernel splitting connections between
 *  two unrelated servers. A port already taken is refused with a message naming it. */
export function listenExclusive(app: UwsTypes.TemplatedApp, host: string, port: number, what: string): Promise<UwsTypes.us_listen_socket> {
  // The native listen takes (host, port, options, callback); the type declarations leave the host out of that form.
  const listen = app.listen as unknown as (h: string, p: number, o: number, cb: (s: UwsTypes.us_listen_socket | false) => void) => void;
  return new Promise((resolve, reject) =>
    listen.call(app, host, port, LIBUS_LISTEN_EXCLUSIVE_PORT, (s) =>
      s
        ? resolve(s)
        : reject(new Error(`cannot listen for ${what} on ${host}:${port}: the address is in use (another Palaver or another program is listening there) or cannot be bound`)),
    ),
  );
}

export function loadUws(allowFallback: boolean): LoadedUws {
  const originalWarn = console.warn;
  const warnings: string[] = [];
  console.warn = (...args: unknown[]) => warnings.push(args.map(String).join(' '));
  let uws: typeof UwsTypes;
  try {
    uws = require('uWebSockets.js');
  } finally {
    console.warn = originalWarn;
  }
  // The native build is a .node addon in require's cache; the fallback is plain JavaScript.
  const native = Object.keys(require.cache).some((k) => /uws_\w+_\w+_\d+\.node$/.test(k));
  if (!native && !allowFallback) {
    throw new Error(
      'uWebSockets.js could not load its native build for this Node.js ' +
        `(${process.platform}-${process.arch}, ABI ${process.versions.modules}) and would fall back to a slow ` +
        'pure-JS server. Use Node.js 20 (as package.json says), or set PALAVER_ALLOW_UWS_FALLBACK=1 to run slowly anyway.' +
        (warnings.length ? `\n${warnings.join('\n')}` : ''),
    );
  }
  return { uws, native };
}
