// The pure parts of file handling: stored and sanitized names, URLs and Markdown links, serving headers,
// byte ranges, and finding upload links in message content.
import test from 'ava';
import { uploadPathIds } from '../../src/realm/files/links.js';
import { contentTypeFor, isPathId, markdownLink, newPathId, sanitizeName, servingHeaders, storedName, uploadUrl } from '../../src/realm/files/names.js';
import { parseRange } from '../../src/files/ranges.js';

test('stored names drop directories and control characters; never empty', (t) => {
  t.is(storedName('C:\\Users\\me\\report.pdf'), 'report.pdf');
  t.is(storedName('../../etc/passwd'), 'passwd');
  t.is(storedName('tab\there\u0000.txt'), 'tabhere.txt');
  t.is(storedName(''), 'uploaded-file');
  t.is(storedName('..'), 'uploaded-file');
});

test('sanitized names keep letters, digits, dots, dashes and underscores', (t) => {
  t.is(sanitizeName('My Photo (1).png'), 'My-Photo-1.png');
  t.is(sanitizeName('ünïcödé ok.txt'), 'ünïcödé-ok.txt');
  t.is(sanitizeName('<script>.html'), 'script.html');
  t.is(sanitizeName('a  -  b'), 'a-b');
  t.is(sanitizeName('???'), 'uploaded-file');
  const long = sanitizeName('x'.repeat(500) + '.jpeg');
  t.true(Buffer.byteLength(long) <= 200);
  t.true(long.endsWith('.jpeg'));
});

test('path IDs and URLs', (t) => {
  const id = newPathId(7, 'résumé final.pdf');
  t.true(isPathId(id));
  t.regex(id, /^7\/[0-9a-f]{2}\/[A-Za-z0-9_-]{24}\/résumé-final\.pdf$/);
  t.is(uploadUrl('7/ab/cdefghijklmnopqrstuvwxyz/résumé.pdf'), '/user_uploads/7/ab/cdefghijklmnopqrstuvwxyz/r%C3%A9sum%C3%A9.pdf');
  t.false(isPathId('7/ab/short/x.pdf'));
  t.false(isPathId('7/ab/cdefghijklmnopqrstuvwx/../x'));
});

test('the Markdown link removes brackets from the filename', (t) => {
  t.is(markdownLink('notes [draft].txt', '/user_uploads/1/ab/x/notes-draft.txt'), '[notes draft.txt](/user_uploads/1/ab/x/notes-draft.txt)');
});

test('content types: the declared one unless generic, else by extension', (t) => {
  t.is(contentTypeFor('a.png', 'image/png'), 'image/png');
  t.is(contentTypeFor('a.png', 'application/octet-stream'), 'image/png');
  t.is(contentTypeFor('a.PDF', undefined), 'application/pdf');
  t.is(contentTypeFor('noext', ''), 'application/octet-stream');
  t.is(contentTypeFor('x.txt', 'text/plain; charset=latin1'), 'text/plain');
});

test('serving: images and text inline, active content downloaded as opaque bytes', (t) => {
  t.like(servingHeaders('image/png', 'a.png'), { contentType: 'image/png', headers: { 'X-Content-Type-Options': 'nosniff' } });
  t.regex(servingHeaders('image/png', 'a.png').headers['Content-Disposition']!, /^inline;/);
  for (const type of ['text/html', 'image/svg+xml', 'application/xhtml+xml', 'text/xml', 'text/javascript']) {
    const h = servingHeaders(type, 'x');
    t.is(h.contentType, 'application/octet-stream', type);
    t.regex(h.headers['Content-Disposition']!, /^attachment;/);
  }
  t.regex(servingHeaders('application/zip', 'ü "q".zip').headers['Content-Disposition']!, /filename="_ _q_\.zip"; filename\*=UTF-8''%C3%BC%20%22q%22\.zip$/);
});

test('byte ranges', (t) => {
  t.deepEqual(parseRange('bytes=0-9', 100), { start: 0, end: 9 });
  t.deepEqual(parseRange('bytes=90-', 100), { start: 90, end: 99 });
  t.deepEqual(parseRange('bytes=90-500', 100), { start: 90, end: 99 });
  t.deepEqual(parseRange('bytes=-5', 100), { start: 95, end: 99 });
  t.deepEqual(parseRange('bytes=-500', 100), { start: 0, end: 99 });
  t.is(parseRange('bytes=100-', 100), 'unsatisfiable');
  t.is(parseRange('bytes=-0', 100), 'unsatisfiable');
  t.is(parseRange(undefined, 100), null);
  t.is(parseRange('bytes=0-1,5-6', 100), null, 'several ranges: the whole file');
  t.is(parseRange('items=0-1', 100), null);
  t.is(parseRange('bytes=9-3', 100), null);
});

test('upload links in message content: relative, absolute, encoded; each once', (t) => {
  const a = '1/ab/cdefghijklmnopqrstuvwxyz/file.txt';
  const b = '1/cd/CDEFGHIJKLMNOPQRSTUVWXYZ/résumé.pdf';
  const content = [
    `[file.txt](/user_uploads/${a})`,
    `again https://chat.example.com/user_uploads/${a}`,
    `[cv](${uploadUrl(b)}) and /user_uploads/not/a/path and /user_uploads/${a}?download=1`,
  ].join('\n');
  t.deepEqual(uploadPathIds(content), [a, b]);
  t.deepEqual(uploadPathIds('no links here'), []);
});
