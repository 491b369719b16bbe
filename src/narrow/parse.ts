// Parses Zulip's narrow language (object and legacy pair forms) into normalized terms, with Zulip's error texts.
import { ApiError, errors } from '../errors.js';
import { HAS_OPERANDS, IS_OPERANDS, type HasOperand, type IsOperand, type NarrowOperator, type NarrowTerm } from './types.js';

export interface ParseOptions {
  /**
   * Topic operands that stand for the empty topic (e.g. "(no topic)", or the realm's "general chat" name for
   * clients without the empty-topic capability). They are mapped to "". By default only "" is the empty topic.
   */
  emptyTopicNames?: readonly string[];
}

/** Largest message ID Zulip accepts in `id:` (Message.MAX_POSSIBLE_MESSAGE_ID). */
export const MAX_MESSAGE_ID = 2147483647;

/** Limits of a narrow (the reference has none; these bound the SQL a narrow compiles to, its parameters and the work
 *  of matching it): terms in one narrow, characters of a text operand, users in a `dm` operand. */
export const MAX_NARROW_TERMS = 100;
export const MAX_NARROW_OPERAND_LENGTH = 1000;
export const MAX_NARROW_DM_USERS = 1000;

/** Zulip's BadNarrowOperatorError: "Invalid narrow operator: {desc}". */
export function narrowError(desc: string): ApiError {
  return errors.badRequest(`Invalid narrow operator: ${desc}`);
}

/** Zulip's InvalidOperatorCombinationError. */
export function combinationError(desc: string): ApiError {
  return errors.badRequest(`Invalid narrow operator combination: ${desc}`);
}

/** Every operator Zulip's NarrowBuilder accepts, mapped to its canonical name. */
const OPERATORS = new Map<string, NarrowOperator>([
  ['channel', 'channel'],
  ['stream', 'channel'],
  ['channels', 'channels'],
  ['streams', 'channels'],
  ['topic', 'topic'],
  ['sender', 'sender'],
  ['dm', 'dm'],
  ['pm-with', 'dm'],
  ['pm_with', 'dm'],
  ['dm-including', 'dm-including'],
  ['group-pm-with', 'group-pm-with'],
  ['group_pm_with', 'group-pm-with'],
  ['is', 'is'],
  ['has', 'has'],
  ['in', 'in'],
  ['id', 'id'],
  ['near', 'near'],
  ['with', 'with'],
  ['search', 'search'],
]);

/** Operators whose operand may be a string or an integer ID. */
const STRING_OR_INT = new Set<NarrowOperator>(['channel', 'sender', 'dm-including', 'group-pm-with', 'id', 'with']);

interface RawTerm {
  operator: unknown;
  operand: unknown;
  negated: unknown;
}

function rawTerm(elem: unknown): RawTerm {
  if (Array.isArray(elem)) {
    if (elem.length !== 2 || elem.some((x) => typeof x !== 'string')) throw errors.badRequest('element is not a string pair');
    return { operator: elem[0], operand: elem[1], negated: false };
  }
  if (elem !== null && typeof elem === 'object') {
    const o = elem as Record<string, unknown>;
    const operand = Object.hasOwn(o, 'operand') ? o.operand : undefined;
    const operator = Object.hasOwn(o, 'operator') ? o.operator : undefined;
    if (operand === undefined || operand === null) throw errors.badRequest('operand is missing');
    if (operator === undefined || operator === null) throw errors.badRequest('operator is missing');
    return { operator, operand, negated: Object.hasOwn(o, 'negated') ? o.negated : false };
  }
  throw errors.badRequest('dict or list required');
}

function checkText(s: string, maxLength = MAX_NARROW_OPERAND_LENGTH): string {
  if (s.includes('\u0000')) throw errors.badRequest('operand contains NULL (0x00) characters.');
  if (s.length > maxLength) throw narrowError(`operand is too long (limit: ${maxLength} characters)`);
  return s;
}

function isId(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v);
}

function stringOrInt(v: unknown): string | number {
  if (typeof v === 'string') return checkText(v);
  if (isId(v)) return v;
  throw errors.badRequest('operand is not a string or integer');
}

function str(v: unknown): string {
  if (typeof v !== 'string') throw errors.badRequest('operand is not a string');
  return checkText(v);
}

function dmOperand(v: unknown): string[] | number[] {
  const users = (n: number) => {
    if (n > MAX_NARROW_DM_USERS) throw narrowError(`too many users (limit: ${MAX_NARROW_DM_USERS})`);
  };
  if (typeof v === 'string') {
    // A list of email addresses, each within the operand limit.
    const emails = checkText(v, MAX_NARROW_OPERAND_LENGTH * MAX_NARROW_DM_USERS).split(',');
    users(emails.length);
    return emails.map((e) => checkText(e.trim()));
  }
  if (!Array.isArray(v)) throw errors.badRequest('operand is not a string or an integer list');
  users(v.length);
  v.forEach((x, i) => {
    if (!isId(x)) throw errors.badRequest(`operand[${i}] is not an integer`);
  });
  return v as number[];
}

function messageId(v: string | number): number {
  const s = String(v);
  if (!/^[0-9]+$/.test(s) || Number(s) > MAX_MESSAGE_ID) throw narrowError('Invalid message ID');
  return Number(s);
}

function withId(v: string | number): number {
  // Zulip applies Python's int(): optional surrounding spaces and sign.
  if (typeof v === 'number') return v;
  const s = v.trim();
  if (!/^[+-]?[0-9]{1,16}$/.test(s)) throw narrowError("Invalid 'with' operator");
  return Number(s);
}

function parseTerm(elem: unknown, options: ParseOptions): NarrowTerm {
  const raw = rawTerm(elem);
  if (typeof raw.operator !== 'string') throw errors.badRequest('operator is not a string');
  if (typeof raw.negated !== 'boolean') throw errors.badRequest('negated is not a boolean');
  const operator = OPERATORS.get(raw.operator);
  if (!operator) throw narrowError(`unknown operator ${raw.operator}`);
  const negated = raw.negated;
  const operand = raw.operand;

  if (STRING_OR_INT.has(operator)) {
    const v = stringOrInt(operand);
    switch (operator) {
      case 'id':
        return { operator, operand: messageId(v), negated };
      case 'with':
        // Zulip drops `negated` on `with` (the term is replaced by the conversation it names).
        return { operator, operand: withId(v), negated: false };
      case 'channel':
      case 'sender':
      case 'dm-including':
      case 'group-pm-with':
        return { operator, operand: v, negated };
    }
  }
  switch (operator) {
    case 'dm':
      return { operator, operand: dmOperand(operand), negated };
    case 'search': {
      const s = str(operand);
      if (s.trim() === '') throw errors.badRequest('operand cannot be blank.');
      // Zulip merges all search operands into one positive term: negation on `search` is ignored, not refused.
      return { operator, operand: s, negated: false };
    }
    case 'near':
      // Zulip's by_near never filters, so negation has no effect there either.
      return { operator, operand: str(operand), negated: false };
    case 'topic': {
      const s = str(operand);
      return { operator, operand: options.emptyTopicNames?.includes(s) ? '' : s, negated };
    }
    case 'channels': {
      const s = str(operand);
      if (s !== 'public' && s !== 'web-public') throw narrowError(`unknown channels operand ${s}`);
      return { operator, operand: s, negated };
    }
    case 'is': {
      const s = str(operand);
      const what = s === 'private' ? 'dm' : s;
      if (!(IS_OPERANDS as readonly string[]).includes(what)) throw narrowError(`unknown 'is' operand ${s}`);
      return { operator, operand: what as IsOperand, negated };
    }
    case 'has': {
      const s = str(operand);
      if (!(HAS_OPERANDS as readonly string[]).includes(s)) throw narrowError(`unknown 'has' operand ${s}`);
      return { operator, operand: s as HasOperand, negated };
    }
    case 'in': {
      const s = str(operand);
      if (s !== 'home' && s !== 'all') throw narrowError(`unknown 'in' operand ${s}`);
      return { operator, operand: s, negated };
    }
  }
  throw new Error(`unhandled narrow operator ${operator}`);
}

/**
 * Zulip refuses a narrow that asks for channel messages and direct messages at once. Negated terms do not
 * count, except that `-is:dm` asks for channel messages.
 */
export function checkChannelDmConflict(terms: readonly NarrowTerm[]): void {
  let channel = false;
  let dm = false;
  for (const t of terms) {
    if (t.operator === 'is' && t.operand === 'dm') {
      if (t.negated) channel = true;
      else dm = true;
    } else if (!t.negated) {
      if (t.operator === 'channel' || t.operator === 'channels' || t.operator === 'topic') channel = true;
      if (t.operator === 'dm' || t.operator === 'dm-including' || t.operator === 'group-pm-with') dm = true;
    }
  }
  if (channel && dm) throw narrowError('No message can be both a channel message and direct message');
}

/**
 * Parses a decoded `narrow` parameter: a list of `{operator, operand, negated?}` objects or legacy
 * `[operator, operand]` string pairs. Throws ApiError (400) with Zulip's texts on anything invalid.
 */
export function parseNarrow(value: unknown, options: ParseOptions = {}): NarrowTerm[] {
  if (!Array.isArray(value)) throw errors.badRequest('narrow is not a list');
  if (value.length > MAX_NARROW_TERMS) throw narrowError(`too many terms (limit: ${MAX_NARROW_TERMS})`);
  const terms = value.map((elem) => parseTerm(elem, options));
  const withCount = terms.filter((t) => t.operator === 'with').length;
  if (withCount > 1) throw combinationError("Duplicate 'with' operators.");
  // With a `with` term the conversation terms get replaced first; resolveNarrow checks the result then.
  if (withCount === 0) checkChannelDmConflict(terms);
  return terms;
}
