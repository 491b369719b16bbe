// A small parser for (already valid, 'u'-flag) JS regexes into a tree, for the safety analysis.

export type Node = Atom | Group | Quant | Assertion;
/** One character position: a literal, a class, an escape like \d, or '.'; `src` is its JS source. */
export interface Atom { t: 'atom'; src: string }
export interface Group { t: 'group'; alts: Node[][]; look: boolean }
export interface Quant { t: 'quant'; min: number; max: number; body: Node }
export interface Assertion { t: 'assert' }

const MAX_COUNT = 1000;

/** A construct the analysis refuses outright (backreferences, lookbehinds, huge counts). */
export class RegexShapeError extends Error {}

export class Parser {
  i = 0;
  readonly names: string[] = [];
  constructor(private readonly s: string) {}

  parseAlts(): Node[][] {
    const alts: Node[][] = [[]];
    while (this.i < this.s.length && this.s[this.i] !== ')') {
      if (this.s[this.i] === '|') {
        this.i++;
        alts.push([]);
        continue;
      }
      alts[alts.length - 1]!.push(this.parseQuant(this.parseTerm()));
    }
    return alts;
  }

  private parseTerm(): Node {
    const s = this.s;
    const c = s[this.i]!;
    if (c === '(') return this.parseGroup();
    if (c === '[') {
      const start = this.i++;
      if (s[this.i] === '^') this.i++;
      while (this.i < s.length && s[this.i] !== ']') this.i += s[this.i] === '\\' ? 2 : 1;
      this.i++;
      return { t: 'atom', src: s.slice(start, this.i) };
    }
    if (c === '\\') return this.parseEscape();
    if (c === '^' || c === '$') {
      this.i++;
      return { t: 'assert' };
    }
    const cp = String.fromCodePoint(s.codePointAt(this.i)!);
    this.i += cp.length;
    return { t: 'atom', src: c === '.' ? '.' : cp.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&') };
  }

  private parseGroup(): Node {
    const s = this.s;
    let look = false;
    if (s.startsWith('(?<=', this.i) || s.startsWith('(?<!', this.i)) {
      throw new RegexShapeError('lookbehind assertions are not allowed');
    } else if (s.startsWith('(?=', this.i) || s.startsWith('(?!', this.i)) {
      look = true;
      this.i += 3;
    } else if (s.startsWith('(?:', this.i)) {
      this.i += 3;
    } else if (s.startsWith('(?<', this.i)) {
      const end = s.indexOf('>', this.i);
      this.names.push(s.slice(this.i + 3, end));
      this.i = end + 1;
    } else {
      this.i += 1;
    }
    const alts = this.parseAlts();
    this.i++; // ')'
    return { t: 'group', alts, look };
  }

  private parseEscape(): Node {
    const s = this.s;
    const start = this.i;
    const c = s[this.i + 1]!;
    this.i += 2;
    if (c === 'b' || c === 'B') return { t: 'assert' };
    if (/[1-9]/.test(c) || c === 'k') throw new RegexShapeError('backreferences are not allowed');
    if ((c === 'p' || c === 'P') && s[this.i] === '{') this.i = s.indexOf('}', this.i) + 1;
    else if (c === 'u' && s[this.i] === '{') this.i = s.indexOf('}', this.i) + 1;
    else if (c === 'u') this.i += 4;
    else if (c === 'x') this.i += 2;
    else if (c === 'c') this.i += 1;
    return { t: 'atom', src: s.slice(start, this.i) };
  }

  private parseQuant(node: Node): Node {
    const s = this.s;
    let min: number;
    let max: number;
    const c = s[this.i];
    if (c === '*' || c === '+' || c === '?') {
      min = c === '+' ? 1 : 0;
      max = c === '?' ? 1 : Infinity;
      this.i++;
    } else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(s.slice(this.i));
      if (!m) return node;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      if (min > MAX_COUNT || (max !== Infinity && max > MAX_COUNT)) {
        throw new RegexShapeError(`repetition counts above ${MAX_COUNT} are not allowed`);
      }
      this.i += m[0].length;
    } else {
      return node;
    }
    if (s[this.i] === '?') this.i++; // lazy
    return { t: 'quant', min, max, body: node };
  }
}
