// GET /external_content/<hmac>/<hex url>: external images shown in messages, fetched by the server (the
// reference's camo), so that clients never reveal themselves to third parties.
import { verifiedUrl } from '../../files/image-proxy.js';
import { endpoint, RawReply } from '../endpoint.js';
import { required, str } from '../../params.js';

export const externalContent = endpoint({
  method: 'GET',
  path: '/external_content/{digest}/{url}',
  root: true,
  auth: 'public',
  params: { digest: required(str({ maxLength: 200 })), url: required(str({ maxLength: 16_000 })) },
  async handle(ctx, p) {
    const files = ctx.services.files;
    const image = await files.imageProxy.fetch(verifiedUrl(files.thumbnailer.proxyKey, p.digest, p.url));
    return new RawReply({
      status: 200,
      contentType: image.contentType,
      headers: {
        'X-Content-Type-Options': 'nosniff',
        'Content-Security-Policy': "default-src 'none'; sandbox",
        'Cache-Control': 'public, max-age=86400',
      },
      body: image.body,
    });
  },
});
