// Inline image previews in the renderer: uploads (placeholder, thumbnail, none without a row), external images
// through the signed proxy URL, the reference's limits and placement, and the rewrite once thumbnails are done.
import { createHmac } from 'node:crypto';
import test from 'ava';
import { renderMarkdown } from '../../src/markdown/index.js';
import { pendingUploadPreviews, proxyUrl, rewriteUploadPreviews, type ImageRenderData, type UploadPreview } from '../../src/markdown/images.js';
import { makeContext, unsafeHtmlReason } from './context.js';

const KEY = 'test-key';
const PENDING: UploadPreview = { url: null, animated: false, width: 1920, height: 1080, contentType: 'image/png' };
const DONE: UploadPreview = { ...PENDING, url: '/user_uploads/thumbnail/2/ab/x/cat.png/840x560.webp' };

function images(uploads: Record<string, UploadPreview> = {}, enabled = true): ImageRenderData {
  return { enabled, proxyKey: KEY, uploads };
}

const render = (content: string, data = images()) => renderMarkdown(content, makeContext({ images: data })).html;

test('an external image link is previewed through the signed proxy URL, as camo signs it', (t) => {
  const url = 'https://example.com/pics/cat.png';
  const digest = createHmac('sha1', KEY).update(url).digest('hex');
  const hex = Buffer.from(url).toString('hex');
  t.is(proxyUrl(KEY, url), `/external_content/${digest}/${hex}`);
  t.is(
    render(`look ${url}`),
    `<p>look <a href="${url}">${url}</a></p>\n` +
      `<div class="message_inline_image"><a href="${url}"><img src="/external_content/${digest}/${hex}"></a></div>`,
  );
});

test('a bare external image URL is replaced by its preview; a named link keeps its paragraph and titles it', (t) => {
  const url = 'https://example.com/a.JPG';
  t.is(render(url), `<div class="message_inline_image"><a href="${url}"><img src="${proxyUrl(KEY, url)}"></a></div>`);
  t.regex(render(`[Cat](${url})`), /^<p><a [^>]+>Cat<\/a><\/p>\n<div class="message_inline_image"><a href="[^"]+" title="Cat"><img src="\/external_content\//);
});

test('the proxied URL of a github blob is its raw image', (t) => {
  const html = render('https://github.com/zulip/zulip/blob/main/static/images/logo.png');
  t.true(html.includes(proxyUrl(KEY, 'https://raw.githubusercontent.com/zulip/zulip/main/static/images/logo.png')));
});

test('links that are no images, quoted images and disabled previews get no preview', (t) => {
  t.false(render('https://example.com/page.html').includes('message_inline_image'));
  t.false(render('> https://example.com/a.png').includes('message_inline_image'));
  t.false(render('https://example.com/a.png', images({}, false)).includes('message_inline_image'));
  t.false(render('https://pasteboard.co/a.png').includes('message_inline_image'));
  // Without image data (no proxy key), external images are never shown directly.
  t.false(renderMarkdown('https://example.com/a.png', makeContext()).html.includes('<img'));
});

test('more than 24 distinct links: no previews at all', (t) => {
  const links = Array.from({ length: 25 }, (_, i) => `https://example.com/${i}.png`).join(' ');
  t.false(render(links).includes('message_inline_image'));
  const fewer = Array.from({ length: 24 }, (_, i) => `https://example.com/${i}.png`).join(' ');
  t.is(render(fewer).split('message_inline_image').length - 1, 24);
});

test('an upload whose thumbnails are pending shows the reference placeholder with the original dimensions', (t) => {
  const html = render('[cat.png](/user_uploads/2/ab/x/cat.png)', images({ '2/ab/x/cat.png': PENDING }));
  t.true(
    html.endsWith(
      '<div class="message_inline_image"><a href="/user_uploads/2/ab/x/cat.png" title="cat.png">' +
        '<img class="image-loading-placeholder" data-original-dimensions="1920x1080" src="/static/images/loading/loader-black.svg"></a></div>',
    ),
    html,
  );
});

test('a thumbnailed upload shows its thumbnail with the reference attributes', (t) => {
  const html = render('[cat.png](/user_uploads/2/ab/x/cat.png)', images({ '2/ab/x/cat.png': DONE }));
  t.true(html.includes('<img data-original-content-type="image/png" data-original-dimensions="1920x1080" src="/user_uploads/thumbnail/2/ab/x/cat.png/840x560.webp">'), html);
  const anim = render('[a.gif](/user_uploads/2/ab/x/a.gif)', images({ '2/ab/x/a.gif': { ...DONE, animated: true, contentType: 'image/gif' } }));
  t.true(anim.includes('<img data-animated="true" data-original-content-type="image/gif"'), anim);
  const heic = render('[a](/user_uploads/2/ab/x/a.heic)', images({ '2/ab/x/a.heic': { ...DONE, contentType: 'image/heic', transcoded: '4032x3024.webp' } }));
  t.true(heic.includes('data-original-dimensions="1920x1080" data-transcoded-image="4032x3024.webp" src='), heic);
});

test('an upload without an image row gets no preview, whatever its name', (t) => {
  const r = renderMarkdown('[cat.png](/user_uploads/2/ab/x/cat.png)', makeContext({ images: images() }));
  t.false(r.html.includes('message_inline_image'));
});

test('the rewrite replaces only the finished upload’s placeholders, or removes them when thumbnailing failed', (t) => {
  const data = images({ '2/ab/x/cat.png': PENDING, '2/cd/y/dog.png': PENDING });
  const html = render('[cat.png](/user_uploads/2/ab/x/cat.png) [dog.png](/user_uploads/2/cd/y/dog.png)', data);
  t.deepEqual(pendingUploadPreviews(html), ['2/ab/x/cat.png', '2/cd/y/dog.png']);
  const done = rewriteUploadPreviews(html, '2/ab/x/cat.png', DONE)!;
  t.is(done, render('[cat.png](/user_uploads/2/ab/x/cat.png) [dog.png](/user_uploads/2/cd/y/dog.png)', images({ '2/ab/x/cat.png': DONE, '2/cd/y/dog.png': PENDING })));
  t.deepEqual(pendingUploadPreviews(done), ['2/cd/y/dog.png']);
  t.is(rewriteUploadPreviews(done, '2/ab/x/cat.png', DONE), null, 'nothing left to do');
  const failed = rewriteUploadPreviews(done, '2/cd/y/dog.png', null)!;
  t.false(failed.includes('dog.png"><img'));
  t.true(failed.includes('<a href="/user_uploads/2/cd/y/dog.png"'), 'the link itself stays');
});

test('text that looks like a placeholder is escaped and never rewritten', (t) => {
  const text = '`<div class="message_inline_image"><a href="/user_uploads/2/ab/x/cat.png"><img class="image-loading-placeholder" src="x"></a></div>`';
  const html = render(text);
  t.is(rewriteUploadPreviews(html, '2/ab/x/cat.png', DONE), null);
  t.deepEqual(pendingUploadPreviews(html), []);
});

test('preview markup is well-formed and safe for hostile URLs and titles', (t) => {
  for (const input of ['[x"><script>](https://e.com/a.png?"onerror=1)', 'https://e.com/"><img src=x onerror=alert(1)>.png', '[<b>](/user_uploads/2/ab/x/a"b.png)']) {
    const html = render(input, images({ '2/ab/x/a"b.png': DONE }));
    t.is(unsafeHtmlReason(html.replace(/ data-[a-z-]+="[^"]*"/g, '')), null, html);
  }
});
