// Static checks on user-supplied regexes: refuses shapes prone to catastrophic backtracking.
//
// The pattern must already compile with the 'u' flag; this parses it into a small tree and
// looks for ambiguity a backtracking engine can explode on:
//  - a repeated group whose body repeats too, e.g. (a+)+, (a*)*, (\d+|x)*, unless each
//    iteration is pinned by a delimiter the inner repetition cannot eat: (?:-[a-z]+)*;
//  - a repeated alternation whose branches can start alike: (a|a)*, (a|ab)+;
//  - an unbounded repetition followed by another that can match the same characters with
//    nothing in between to stop the first: \d+\d+, .*x.*, (\w+)\s*(\w+);
//  - backreferences and lookbehinds, which the analysis does not model.
import { type Atom, type Group, type Node, Parser, type Quant, RegexShapeError } from './regex-parse.js';

// ---- character-set overlap -------------------------------------------------------------

const SAMPLES = [
  ...Array.from({ length: 95 }, (_, k) => String.fromCharCode(32 + k)),
  '\t', '\n', '\r', '\u00a0', '\u2028', '\u3000', 'é', 'ß', 'Ω', 'ж', 'İ', '中', '٣', '🙂', '\u200d', '\ufe0f',
];
const atomRegexCache = new Map<string, RegExp>();
const sampleMaskCache = new Map<string, boolean[]>();

function atomMatches(atom: Atom, ch: string): boolean {
  let re = atomRegexCache.get(atom.src);
  if (!re) {
    re = new RegExp(`^(?:${atom.src})$`, 'u');
    if (atomRegexCache.size < 10_000) atomRegexCache.set(atom.src, re);
  }
  return re.test(ch);
}

/** Which of SAMPLES the atom matches, computed once per atom source. */
function sampleMask(atom: Atom): boolean[] {
  let mask = sampleMaskCache.get(atom.src);
  if (!mask) {
    mask = SAMPLES.map((ch) => atomMatches(atom, ch));
    if (sampleMaskCache.size < 10_000) sampleMaskCache.set(atom.src, mask);
  }
  return mask;
}

/** The single character an atom stands for, if it is a literal. */
function literalOf(atom: Atom): string | undefined {
  if (atom.src === '.' || atom.src.startsWith('[')) return undefined;
  if (!atom.src.startsWith('\\')) return atom.src;
  return /^\\[\\^$.*+?()[\]{}|/]$/.test(atom.src) ? atom.src[1] : undefined;
}

function overlaps(a: Atom, b: Atom): boolean {
  const la = literalOf(a);
  if (la !== undefined) return atomMatches(b, la);
  const lb = literalOf(b);
  if (lb !== undefined) return atomMatches(a, lb);
  const ma = sampleMask(a);
  const mb = sampleMask(b);
  return ma.some((hit, k) => hit && mb[k]);
}

function unique(atoms: Atom[]): Atom[] {
  const seen = new Map<string, Atom>();
  for (const a of atoms) if (!seen.has(a.src)) seen.set(a.src, a);
  return [...seen.values()];
}

function anyOverlap(as: Atom[], bs: Atom[]): boolean {
  const ub = unique(bs);
  return unique(as).some((a) => ub.some((b) => overlaps(a, b)));
}

// ---- tree helpers ------------------------------------------------------------------------

function atomsIn(n: Node): Atom[] {
  if (n.t === 'atom') return [n];
  if (n.t === 'quant') return atomsIn(n.body);
  if (n.t === 'group' && !n.look) return n.alts.flat().flatMap(atomsIn);
  return [];
}

/** Atoms that sit under a variable-count repetition somewhere inside `n`. */
function repeatedAtoms(n: Node): Atom[] {
  if (n.t === 'quant') return n.min !== n.max ? atomsIn(n.body) : repeatedAtoms(n.body);
  if (n.t === 'group' && !n.look) return n.alts.flat().flatMap(repeatedAtoms);
  return [];
}

function hasUnbounded(n: Node): boolean {
  if (n.t === 'quant') return n.max === Infinity || hasUnbounded(n.body);
  if (n.t === 'group' && !n.look) return n.alts.flat().some(hasUnbounded);
  return false;
}

/** Inline plain single-branch groups so `(?<a>\d+)(?<b>\d+)` is seen as `\d+\d+`. */
function flatten(seq: Node[]): Node[] {
  return seq.flatMap((n) =>
    n.t === 'group' && !n.look && n.alts.length === 1 ? flatten(n.alts[0]!) : n.t === 'assert' ? [] : [n],
  );
}

/** An atom that must match where this element starts (or ends), if there is a single one. */
function requiredAtom(n: Node | undefined): Atom | undefined {
  if (!n) return undefined;
  if (n.t === 'atom') return n;
  if (n.t === 'quant' && n.min >= 1 && n.body.t === 'atom') return n.body;
  return undefined;
}

/** Whether `n` can match without consuming anything. */
function canBeEmpty(n: Node): boolean {
  if (n.t === 'atom') return false;
  if (n.t === 'quant') return n.min === 0 || canBeEmpty(n.body);
  if (n.t === 'group' && !n.look) return n.alts.some((alt) => alt.every(canBeEmpty));
  return true;
}

/** Every atom a match of `seq` can begin with (a superset). */
function startAtoms(seq: Node[]): Atom[] {
  const out: Atom[] = [];
  for (const n of seq) {
    if (n.t === 'atom') out.push(n);
    else if (n.t === 'quant') out.push(...startAtoms([n.body]));
    else if (n.t === 'group' && !n.look) out.push(...n.alts.flatMap(startAtoms));
    if (!canBeEmpty(n)) break;
  }
  return out;
}

/** First atoms an alternative can start with; undefined when it may match nothing. */
function firstAtoms(seq: Node[]): Atom[] | undefined {
  return seq.every(canBeEmpty) ? undefined : startAtoms(seq);
}

// ---- the checks --------------------------------------------------------------------------

function checkRepetition(q: Quant): string | null {
  if (q.max <= 1) return null;
  const alts = q.body.t === 'group' && !q.body.look ? q.body.alts : [[q.body]];
  for (const alt of alts) {
    const flat = flatten(alt);
    const inner = flat.flatMap(repeatedAtoms);
    if (inner.length === 0) continue;
    const head = requiredAtom(flat[0]);
    const tail = requiredAtom(flat[flat.length - 1]);
    const pinned = [head, tail].some((d) => d !== undefined && !inner.some((a) => overlaps(a, d)));
    if (!pinned) return 'nested quantifiers (like (a+)+) are not allowed';
  }
  if (alts.length > 1) {
    const firsts = alts.map(firstAtoms);
    if (firsts.some((f) => f === undefined)) {
      return 'a repeated alternation must have non-empty branches starting with distinct characters';
    }
    for (let i = 0; i < firsts.length; i++) {
      for (let j = i + 1; j < firsts.length; j++) {
        if (anyOverlap(firsts[i]!, firsts[j]!)) {
          return 'overlapping alternatives inside a repetition (like (a|a)*) are not allowed';
        }
      }
    }
  }
  return null;
}

function checkSequence(seq: Node[]): string | null {
  const flat = flatten(seq);
  for (let i = 0; i < flat.length; i++) {
    if (!hasUnbounded(flat[i]!)) continue;
    const mine = atomsIn(flat[i]!);
    for (let j = i + 1; j < flat.length; j++) {
      const other = flat[j]!;
      // Only what `other` can start with competes with the run before it.
      if (repeatedAtoms(other).length > 0 && anyOverlap(mine, startAtoms([other]))) {
        return 'adjacent repetitions that can match the same text (like \\d+\\d+ or .*x.*) are not allowed';
      }
      const stop = requiredAtom(other);
      if (stop && !mine.some((a) => overlaps(a, stop))) break;
    }
  }
  return null;
}

function walk(n: Node): string | null {
  if (n.t === 'quant') return checkRepetition(n) ?? walk(n.body);
  if (n.t === 'group') {
    for (const alt of n.alts) {
      const err = checkSequence(alt) ?? alt.map(walk).find((e) => e !== null) ?? null;
      if (err) return err;
    }
  }
  return null;
}

export interface RegexShape {
  /** Named capture groups, in order. */
  names: string[];
  /** Why the pattern is refused, or null. */
  error: string | null;
}

/** Analyses a JS pattern that already compiles with the 'u' flag. */
export function analyzeRegex(jsPattern: string): RegexShape {
  const parser = new Parser(jsPattern);
  try {
    const root: Group = { t: 'group', alts: parser.parseAlts(), look: false };
    return { names: parser.names, error: walk(root) };
  } catch (e) {
    if (e instanceof RegexShapeError) return { names: parser.names, error: e.message };
    throw e;
  }
}
