// Zulip-flavored Markdown renderer: markdown-it configured with the service's syntax plugins.
import MarkdownIt from 'markdown-it';
import type { Options, RendererRule, StateInline } from 'markdown-it';
import { emojiNameRule } from './emoji-rules.js';
import { containerRule, renderCodeBlock, renderFence, spoilerRenderers } from './fences.js';
import { compileLinkifiers } from './linkifiers.js';
import { linkPass, PREVIEW_TOKEN, renderLinkOpen, renderPreview } from './links.js';
import { channelRule, HTML_TOKEN, mentionRule } from './mentions.js';
import { textPass } from './text-pass.js';
import type { RenderContext, RenderEnv, RenderResult } from './types.js';
import { escapeText, isSafeUrl } from './urls.js';

export type { RenderContext, RenderResult } from './types.js';
export type { ImageRenderData, UploadPreview } from './images.js';
export { pendingUploadPreviews, rewriteUploadPreviews } from './images.js';
export { validateLinkifierPattern, validateUrlTemplate } from './linkifiers.js';
export { defaultEmojiLookup, emojiByName, emojiCodeIsValid, emojiNameForCode } from './emoji.js';

/** Bound on block and inline nesting, so hostile input (10k '>' or '[') stays cheap. */
export const MAX_NESTING = 20;

// Fuzzy (scheme-less) links ending in these look like file names: "views.py", "README.md".
const FILE_LIKE_TLDS = new Set(['py', 'md', 'rs', 'sh', 'so', 'pl', 'ts', 'js', 'rb', 'cc', 'hh']);

/** Zulip has no `_` emphasis: underscores are always literal text. */
function literalUnderscores(state: StateInline, silent: boolean): boolean {
  let end = state.pos;
  while (state.src.charCodeAt(end) === 0x5f /* _ */) end++;
  if (end === state.pos) return false;
  if (!silent) state.pending += state.src.slice(state.pos, end);
  state.pos = end;
  return true;
}

function buildParser(): MarkdownIt {
  // maxNesting is a real markdown-it option that the typings leave out.
  const options = { html: false, linkify: true, breaks: true, maxNesting: MAX_NESTING };
  const md = new MarkdownIt('default', options as Options);
  // Zulip has no image syntax, reference links or setext headings.
  md.disable(['image', 'reference', 'lheading', 'html_block', 'html_inline']);
  md.validateLink = isSafeUrl;

  md.linkify.add('//', null); // no protocol-relative autolinks ("https:smiley://x" stays text)
  const match = md.linkify.match.bind(md.linkify);
  md.linkify.match = (text: string) =>
    (match(text) ?? []).filter((m) => {
      if (m.schema !== '') return true;
      const host = m.url.replace(/^[a-z]+:\/\//i, '').split(/[/?#:]/, 1)[0]!;
      return !FILE_LIKE_TLDS.has(host.slice(host.lastIndexOf('.') + 1).toLowerCase());
    });

  md.block.ruler.before('fence', 'palaver_container', containerRule, {
    alt: ['paragraph', 'reference', 'blockquote', 'list'],
  });
  md.inline.ruler.after('linkify', 'palaver_emoji', emojiNameRule);
  md.inline.ruler.before('emphasis', 'palaver_mention', mentionRule);
  md.inline.ruler.before('emphasis', 'palaver_channel', channelRule);
  md.inline.ruler.before('emphasis', 'palaver_underscore', literalUnderscores);
  md.core.ruler.push('palaver_text', textPass);
  md.core.ruler.push('palaver_links', linkPass);

  const rules = md.renderer.rules;
  rules.text = (tokens, idx) => escapeText(tokens[idx]!.content);
  rules.code_inline = (tokens, idx) => `<code>${escapeText(tokens[idx]!.content)}</code>`;
  rules.fence = renderFence;
  rules.code_block = renderCodeBlock;
  rules.link_open = renderLinkOpen;
  rules.s_open = () => '<del>';
  rules.s_close = () => '</del>';
  rules[HTML_TOKEN] = (tokens, idx) => tokens[idx]!.content;
  rules[PREVIEW_TOKEN] = renderPreview;
  Object.assign(rules, spoilerRenderers);
  // Zulip writes "<li>text<ul>" where markdown-it would put a newline after the text.
  const listOpen: RendererRule = (tokens, idx, opts, _env, self) => {
    const html = self.renderToken(tokens, idx, opts);
    return idx > 0 && tokens[idx - 1]!.hidden ? html.replace(/^\n/, '') : html;
  };
  rules.bullet_list_open = listOpen;
  rules.ordered_list_open = listOpen;
  return md;
}

const md = buildParser();

/** Renders a message's Markdown to Zulip-compatible HTML and reports mentions and content flags. */
export function renderMarkdown(content: string, ctx: RenderContext): RenderResult {
  const { compiled, errors } = compileLinkifiers(ctx.linkifiers);
  const result: RenderResult = {
    html: '',
    mentionedUserIds: new Set(),
    mentionedGroupIds: new Set(),
    wildcards: { stream: false, topic: false },
    hasLink: false,
    hasImage: false,
    hasAttachment: false,
  };
  if (errors.length > 0) result.linkifierErrors = errors;
  const env: RenderEnv = { ctx, result, linkifiers: compiled, previewed: new Set() };
  result.html = md.render(content, env).replace(/\n+$/, '');
  return result;
}
