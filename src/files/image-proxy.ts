// The image proxy behind /external_content/<hmac>/<hex url> (the reference's camo): only URLs this server signed
// are fetched, by the server, so clients never contact third parties. Each fetch is bounded: one deadline for
// everything, a byte limit, image types only, a few redirects, and no connection to private or special-use
// addresses (checked on the address actually connected to, so DNS cannot point a name at the inside).
import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import { ApiError, errors } from '../errors.js';
import { proxyDigest } from '../markdown/images.js';
import { guardedLookup, refusedLiteral } from '../net-guard.js';

export interface ProxyOptions {
  key: string;
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
  allowPrivate: boolean;
}

export interface ProxiedImage {
  contentType: string;
  body: Buffer;
}

/** Fetches at once; beyond this the proxy answers 503 (each fetch may hold maxBytes in memory). */
const MAX_IN_FLIGHT = 16;

/** The URL a proxy path names, when its signature is this server's; the error to answer otherwise. */
export function verifiedUrl(key: string, digest: string, hex: string): string {
  if (!/^[0-9a-f]{40}$/.test(digest) || !/^(?:[0-9a-f]{2})+$/.test(hex)) throw errors.imageProxyBadSignature();
  const url = Buffer.from(hex, 'hex').toString('utf8');
  const expected = Buffer.from(proxyDigest(key, url), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(digest, 'hex'))) throw errors.imageProxyBadSignature();
  return url;
}

export class ImageProxy {
  private inFlight = 0;

  private readonly lookup: ReturnType<typeof guardedLookup>;

  constructor(private opts: Omit<ProxyOptions, 'key'>) {
    this.lookup = guardedLookup(opts.allowPrivate);
  }

  /** Fetches an image the server signed; throws the ApiError to answer with when it cannot be had. */
  async fetch(url: string): Promise<ProxiedImage> {
    if (this.inFlight >= MAX_IN_FLIGHT) throw errors.busy('Too many image fetches in progress', 1);
    this.inFlight++;
    const deadline = AbortSignal.timeout(this.opts.timeoutMs);
    try {
      let current = url;
      for (let hop = 0; ; hop++) {
        const res = await this.request(current, deadline);
        const location = res.headers.location;
        if (res.statusCode !== undefined && res.statusCode >= 300 && res.statusCode < 400 && location) {
          res.resume();
          if (hop >= this.opts.maxRedirects) throw errors.imageProxyFailed('Too many redirects');
          current = new URL(location, current).toString();
          continue;
        }
        return await this.read(res, deadline);
      }
    } finally {
      this.inFlight--;
    }
  }

  private request(url: string, signal: AbortSignal): Promise<IncomingMessage> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return Promise.reject(errors.imageProxyFailed('Invalid URL'));
    }
    const client = parsed.protocol === 'https:' ? https : parsed.protocol === 'http:' ? http : null;
    if (!client) return Promise.reject(errors.imageProxyFailed('Unsupported URL scheme'));
    if (refusedLiteral(parsed, this.opts.allowPrivate)) return Promise.reject(errors.imageProxyFailed('Address not allowed'));
    return new Promise((resolve, reject) => {
      const req = client.get(parsed, { lookup: this.lookup, signal, headers: { accept: 'image/*', 'user-agent': 'palaver-image-proxy' } }, resolve);
      req.on('error', (err) => reject(signal.aborted ? errors.imageProxyFailed('Timed out') : errors.imageProxyFailed(`Fetch failed: ${(err as NodeJS.ErrnoException).code ?? err.message}`)));
    });
  }

  private async read(res: IncomingMessage, signal: AbortSignal): Promise<ProxiedImage> {
    const type = (res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (res.statusCode !== 200) {
      res.resume();
      throw errors.imageProxyFailed(`Upstream answered ${res.statusCode}`);
    }
    // Images only, and none a browser could run as a document (SVG).
    if (!/^image\/[a-z0-9.+-]+$/.test(type) || type.includes('svg')) {
      res.resume();
      throw errors.imageProxyFailed('Not an image');
    }
    const declared = Number(res.headers['content-length'] ?? 0);
    if (declared > this.opts.maxBytes) {
      res.destroy();
      throw errors.imageProxyFailed('Image too large');
    }
    const parts: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res) {
        size += (chunk as Buffer).length;
        if (size > this.opts.maxBytes) {
          res.destroy();
          throw errors.imageProxyFailed('Image too large');
        }
        parts.push(chunk as Buffer);
      }
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw errors.imageProxyFailed(signal.aborted ? 'Timed out' : 'Fetch failed');
    }
    return { contentType: type, body: Buffer.concat(parts) };
  }
}
