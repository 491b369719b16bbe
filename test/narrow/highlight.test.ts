// Search highlighting: whole matching words, only in text nodes, entities intact, plain text escaped.
import test from 'ava';
import { highlight } from '../../src/narrow/index.js';

const H = (s: string) => `<span class="highlight">${s}</span>`;

test('plain topics are escaped and matching words wrapped', (t) => {
  t.is(highlight('Hello <world> & more', ['hel', 'MORE'], false), `${H('Hello')} &lt;world&gt; &amp; ${H('more')}`);
  t.is(highlight('a<b', [], false), 'a&lt;b');
  t.is(highlight('x-ray', ['x-ray'], false), `${H('x')}-${H('ray')}`);
  t.is(highlight('ÉCOLE naïve', ['école'], false), `${H('ÉCOLE')} naïve`);
});

test('HTML: only text nodes change; tags, attributes and entities stay whole', (t) => {
  const html = '<p>Hello <a href="https://hello.example" title="hello">hello</a> &amp; hellos &lt;hello&gt;</p>';
  t.is(
    highlight(html, ['hello'], true),
    `<p>${H('Hello')} <a href="https://hello.example" title="hello">${H('hello')}</a> &amp; ${H('hellos')} &lt;${H('hello')}&gt;</p>`,
  );
  t.is(highlight('<p>caf&eacute; &quot;x&quot;</p>', ['quot', 'eacute', 'amp'], true), '<p>caf&eacute; &quot;x&quot;</p>');
  t.is(highlight('<p>caf&eacute;</p>', ['caf'], true), `<p>${H('caf')}&eacute;</p>`);
  t.is(highlight('<p>x</p>', ['!!'], true), '<p>x</p>');
  t.is(highlight('<span class="user-mention">@iago</span>', ['user', 'span', 'iago'], true), `<span class="user-mention">@${H('iago')}</span>`);
});
