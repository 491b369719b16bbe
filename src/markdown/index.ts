// Zulip-flavored Markdown renderer: markdown-it configured with the reference's syntax rules (see README.md).
import MarkdownIt from 'markdown-it';
import type { Options, RendererRule, StateInline } from 'markdown-it';
import { autolinkRule, textRule } from './autolinks.js';
import { joinAdjacentLists, keepTrailingSpaces, listsInterruptParagraphs, normalizeListIndent, type BlockRule } from './lists.js';
import { emptyQuotesAreText, exactInlineCode, type InlineRule } from './blocks.js';
import { emphasisRule } from './emphasis.js';
import { emojiNameRule } from './emoji-rules.js';
import { containerRule, fenceRule, renderCodeBlock, renderFence, spoilerRenderers } from './fences.js';
import { texBudget, texInlineRule } from './math.js';
import { timestampRule } from './timestamps.js';
import { compileLinkifiers } from './linkifiers.js';
import { linkPass, PREVIEW_TOKEN, renderLinkOpen, renderPreview } from './links.js';
import { channelRule, HTML_TOKEN, mentionRule, settleMentions } from './mentions.js';
import { textPass } from './text-pass.js';
import { resultOf, type RenderContext, type RenderEnv, type RenderResult } from './types.js';
import { escapeText, isSafeUrl } from './urls.js';

export type { MentionableUser, RenderContext, RenderResult } from './types.js';
export type { ImageRenderData, UploadPreview } from './images.js';
export { pendingUploadPreviews, rewriteUploadPreviews } from './images.js';
export { validateLinkifierPattern, validateUrlTemplate } from './linkifiers.js';
export { defaultEmojiLookup, emojiByName, emojiCodeIsValid, emojiNameForCode } from './emoji.js';

/** Bound on block and inline nesting, so hostile input (10k '>' or '[') stays cheap. */
export const MAX_NESTING = 20;

/** Zulip has no `_` emphasis: underscores are always literal text. */
function literalUnderscores(state: StateInline, silent: boolean): boolean {
  let end = state.pos;
  while (state.src.charCodeAt(end) === 0x5f /* _ */) end++;
  if (end === state.pos) return false;
  if (!silent) state.pending += state.src.slice(state.pos, end);
  state.pos = end;
  return true;
}

/** Replaces markdown-it's rule `name` by `wrapper(rule)`: markdown-it has no API to wrap one of its rules. */
function wrapRule<F>(ruler: unknown, name: string, wrapper: (fn: F) => F): void {
  const r = ruler as { __rules__: { name: string; fn: F }[]; __cache__: unknown };
  const rule = r.__rules__.find((x) => x.name === name)!;
  rule.fn = wrapper(rule.fn);
  r.__cache__ = null; // the compiled rule chains are rebuilt with the wrapped rule
}

function buildParser(): MarkdownIt {
  // maxNesting is a real markdown-it option that the typings leave out.
  const options = { html: false, linkify: false, breaks: true, maxNesting: MAX_NESTING };
  const md = new MarkdownIt('default', options as Options);
  // Zulip has no image syntax, reference links, setext headings or <url> autolinks; bare links are ours.
  md.disable(['image', 'reference', 'lheading', 'html_block', 'html_inline', 'autolink', 'linkify', 'emphasis', 'strikethrough']);
  md.validateLink = isSafeUrl;
  md.inline.ruler.at('text', textRule);
  md.inline.ruler.before('text', 'palaver_autolink', autolinkRule);

  const interrupts = { alt: ['paragraph', 'reference', 'blockquote', 'list'] };
  md.block.ruler.before('fence', 'palaver_container', containerRule, interrupts);
  md.block.ruler.at('fence', fenceRule, interrupts);
  md.inline.ruler.before('emphasis', 'palaver_tex', texInlineRule);
  md.inline.ruler.before('emphasis', 'palaver_time', timestampRule);
  md.inline.ruler.after('text', 'palaver_emoji', emojiNameRule);
  md.inline.ruler.before('emphasis', 'palaver_mention', mentionRule);
  md.inline.ruler.before('emphasis', 'palaver_channel', channelRule);
  md.inline.ruler.before('emphasis', 'palaver_underscore', literalUnderscores);
  md.inline.ruler.before('emphasis', 'palaver_emphasis', emphasisRule);
  wrapRule<BlockRule>(md.block.ruler, 'list', listsInterruptParagraphs);
  wrapRule<BlockRule>(md.block.ruler, 'blockquote', emptyQuotesAreText);
  wrapRule<BlockRule>(md.block.ruler, 'paragraph', keepTrailingSpaces);
  wrapRule<InlineRule>(md.inline.ruler, 'backticks', exactInlineCode);
  md.core.ruler.after('block', 'palaver_lists', joinAdjacentLists);
  md.core.ruler.push('palaver_mentions', settleMentions);
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
  const result = resultOf('');
  if (errors.length > 0) result.linkifierErrors = errors;
  const env: RenderEnv = { ctx, result, linkifiers: compiled, previewed: new Set(), tex: texBudget() };
  const html = md.render(normalizeListIndent(content), env);
  let end = html.length;
  while (end > 0 && html.charCodeAt(end - 1) === 0x0a) end--; // trailing newlines off (a regex would be quadratic)
  result.html = html.slice(0, end);
  return result;
}
