// Declarative request-parameter schemas: compiled once per endpoint, they turn raw strings into typed values.
import { ApiError, errors } from './errors.js';

/** A parameter type: parses a raw form/query string, or a value already decoded from JSON. */
export interface ParamType<T> {
  fromRaw(raw: string, name: string): T;
  fromJson(value: unknown, name: string): T;
}

const NUL = '\u0000';

function checkString(s: string, name: string, opts: StrOptions): string {
  if (!opts.allowNul && s.includes(NUL)) throw errors.invalidParam(`${name} contains NULL (0x00) characters.`);
  if (opts.trim) s = s.trim();
  // Code points, as Python counts; a string of more than twice the limit in UTF-16 units is too long without counting.
  if (opts.maxLength !== undefined && s.length > opts.maxLength && (s.length > 2 * opts.maxLength || [...s].length > opts.maxLength)) {
    throw errors.invalidParam(`${name} is too long (limit: ${opts.maxLength} characters)`);
  }
  if (opts.minLength !== undefined && [...s].length < opts.minLength) {
    throw errors.invalidParam(opts.minLength === 1 ? `${name} cannot be empty` : `${name} is too short`);
  }
  return s;
}

function parseJson(raw: string, name: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw errors.invalidParam(`Argument "${name}" is not valid JSON.`);
  }
}

export interface StrOptions {
  maxLength?: number;
  minLength?: number;
  trim?: boolean;
  allowNul?: boolean;
}

export function str(opts: StrOptions = {}): ParamType<string> {
  return {
    fromRaw: (raw, name) => checkString(raw, name, opts),
    fromJson: (v, name) => {
      if (typeof v !== 'string') throw errors.invalidParam(`${name} is not a string`);
      return checkString(v, name, opts);
    },
  };
}

export interface IntOptions {
  min?: number;
  max?: number;
}

function checkInt(n: number, name: string, opts: IntOptions): number {
  if (!Number.isSafeInteger(n)) throw errors.invalidParam(`${name} is not an integer`);
  if (opts.min !== undefined && n < opts.min) throw errors.invalidParam(`${name} is too small`);
  if (opts.max !== undefined && n > opts.max) throw errors.invalidParam(`${name} is too large`);
  return n;
}

const INT_RE = /^-?\d{1,16}$/;

export function int(opts: IntOptions = {}): ParamType<number> {
  return {
    fromRaw: (raw, name) => {
      const s = raw.trim();
      if (!INT_RE.test(s)) throw errors.invalidParam(`${name} is not an integer`);
      return checkInt(Number(s), name, opts);
    },
    fromJson: (v, name) => {
      if (typeof v !== 'number') throw errors.invalidParam(`${name} is not an integer`);
      return checkInt(v, name, opts);
    },
  };
}

/** An http(s) URL (Zulip's check_url), as a JSON string or plain; at most 2,000 characters. */
export function url(): ParamType<string> {
  const check = (v: unknown, name: string): string => {
    if (typeof v !== 'string') throw errors.invalidParam(`${name} is not a string`);
    if (v.length > 2000 || !URL.canParse(v) || !/^https?:$/.test(new URL(v).protocol)) throw errors.invalidParam(`${name} is not a URL`);
    return v;
  };
  return {
    fromRaw: (raw, name) => check(raw.startsWith('"') ? parseJson(raw, name) : raw, name),
    fromJson: check,
  };
}

export function bool(): ParamType<boolean> {
  const fromJson = (v: unknown, name: string): boolean => {
    if (typeof v !== 'boolean') throw errors.invalidParam(`${name} is not a boolean`);
    return v;
  };
  return {
    fromRaw: (raw, name) => {
      const s = raw.trim().toLowerCase();
      if (s === 'true') return true;
      if (s === 'false') return false;
      throw errors.invalidParam(`${name} is not a boolean`);
    },
    fromJson,
  };
}

export function enumOf<const V extends string>(values: readonly V[]): ParamType<V> {
  const allowed = new Set<string>(values);
  const check = (s: string, name: string): V => {
    if (!allowed.has(s)) throw errors.invalidParam(`Invalid ${name}`);
    return s as V;
  };
  return {
    fromRaw: check,
    fromJson: (v, name) => {
      if (typeof v !== 'string') throw errors.invalidParam(`${name} is not a string`);
      return check(v, name);
    },
  };
}

export function intEnum<const V extends number>(values: readonly V[]): ParamType<V> {
  const base = int();
  const allowed = new Set<number>(values);
  const check = (n: number, name: string): V => {
    if (!allowed.has(n)) throw errors.invalidParam(`Invalid ${name}`);
    return n as V;
  };
  return {
    fromRaw: (raw, name) => check(base.fromRaw(raw, name), name),
    fromJson: (v, name) => check(base.fromJson(v, name), name),
  };
}

/** A JSON-encoded array; in a form the whole array is one JSON string. */
export function list<T>(item: ParamType<T>, opts: { maxItems?: number } = {}): ParamType<T[]> {
  const fromJson = (v: unknown, name: string): T[] => {
    if (!Array.isArray(v)) throw errors.invalidParam(`${name} is not a list`);
    if (opts.maxItems !== undefined && v.length > opts.maxItems) {
      throw errors.invalidParam(`${name} has too many items (limit: ${opts.maxItems})`);
    }
    return v.map((x, i) => item.fromJson(x, `${name}[${i}]`));
  };
  return { fromRaw: (raw, name) => fromJson(parseJson(raw, name), name), fromJson };
}

type FieldTypes = Record<string, Field<unknown>>;
type ObjectOf<F extends FieldTypes> = { [K in keyof F]: FieldValue<F[K]> };

/** A JSON-encoded object with known keys. Unknown keys are refused. */
export function object<F extends FieldTypes>(fields: F): ParamType<ObjectOf<F>> {
  const fromJson = (v: unknown, name: string): ObjectOf<F> => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw errors.invalidParam(`${name} is not a dict`);
    const input = v as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(fields)) {
      const itemName = `${name}["${key}"]`;
      if (!(key in input) || input[key] === undefined) {
        if (field.required) throw errors.invalidParam(`${key} key is missing from ${name}`);
        out[key] = field.default;
        continue;
      }
      out[key] = field.type.fromJson(input[key], itemName);
    }
    for (const key of Object.keys(input)) {
      if (!(key in fields)) throw errors.invalidParam(`Unexpected key ${key} in ${name}`);
    }
    return out as ObjectOf<F>;
  };
  return { fromRaw: (raw, name) => fromJson(parseJson(raw, name), name), fromJson };
}

/** A dictionary with arbitrary string keys and typed values. */
export function dict<T>(value: ParamType<T>): ParamType<Record<string, T>> {
  const fromJson = (v: unknown, name: string): Record<string, T> => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw errors.invalidParam(`${name} is not a dict`);
    const out: Record<string, T> = Object.create(null);
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = value.fromJson(x, `${name}["${k}"]`);
    return out;
  };
  return { fromRaw: (raw, name) => fromJson(parseJson(raw, name), name), fromJson };
}

/** Any JSON value, left for the handler to interpret. */
export function json(): ParamType<unknown> {
  return { fromRaw: (raw, name) => parseJson(raw, name), fromJson: (v) => v };
}

/** `null` (JSON) or the inner type. */
export function nullable<T>(inner: ParamType<T>): ParamType<T | null> {
  return {
    fromRaw: (raw, name) => (raw === 'null' ? null : inner.fromRaw(raw, name)),
    fromJson: (v, name) => (v === null ? null : inner.fromJson(v, name)),
  };
}

/** The first of several types that accepts the value; the last one's error otherwise. */
export function oneOf<T extends unknown[]>(...types: { [K in keyof T]: ParamType<T[K]> }): ParamType<T[number]> {
  const attempt = (f: (t: ParamType<unknown>) => unknown): T[number] => {
    let last: unknown;
    for (const t of types as ParamType<unknown>[]) {
      try {
        return f(t) as T[number];
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
        last = e;
      }
    }
    throw last;
  };
  return {
    fromRaw: (raw, name) => attempt((t) => t.fromRaw(raw, name)),
    fromJson: (v, name) => attempt((t) => t.fromJson(v, name)),
  };
}

/** A schema field: its type, whether it is required, its default and aliases (deprecated names). */
export interface Field<T> {
  type: ParamType<T>;
  required: boolean;
  default: T | undefined;
  aliases: readonly string[];
}
type FieldValue<F> = F extends Field<infer T> ? (F extends { required: true } ? T : F extends { default: T } ? T : T | undefined) : never;

export function required<T>(type: ParamType<T>, aliases: readonly string[] = []): Field<T> & { required: true } {
  return { type, required: true, default: undefined, aliases };
}
export function optional<T>(type: ParamType<T>, aliases: readonly string[] = []): Field<T> & { required: false } {
  return { type, required: false, default: undefined, aliases };
}
export function withDefault<T>(type: ParamType<T>, value: T, aliases: readonly string[] = []): Field<T> & { required: false; default: T } {
  return { type, required: false, default: value, aliases };
}

export type Schema = Record<string, Field<any>>;
export type ParamsOf<S extends Schema> = { [K in keyof S]: S[K] extends { required: true } ? S[K]['type'] extends ParamType<infer T> ? T : never : S[K] extends { default: infer D } ? D extends undefined ? (S[K]['type'] extends ParamType<infer T> ? T | undefined : never) : (S[K]['type'] extends ParamType<infer T> ? T : never) : never };

export interface ParsedParams<P> {
  values: P;
  /** Names the client sent that the endpoint does not use. */
  ignored: string[];
}

export type ParamParser<P> = (raw: ReadonlyMap<string, string>) => ParsedParams<P>;

/** Compiles a schema into a parser. Raw values win in schema order; aliases are looked up after the name. */
export function compileSchema<S extends Schema>(schema: S): ParamParser<ParamsOf<S>> {
  const entries = Object.entries(schema);
  const known = new Set<string>();
  for (const [name, field] of entries) {
    known.add(name);
    for (const a of field.aliases) known.add(a);
  }
  return (raw) => {
    const values: Record<string, unknown> = {};
    for (const [name, field] of entries) {
      let rawValue = raw.get(name);
      let usedName = name;
      if (rawValue === undefined) {
        for (const alias of field.aliases) {
          rawValue = raw.get(alias);
          if (rawValue !== undefined) {
            usedName = alias;
            break;
          }
        }
      }
      if (rawValue === undefined) {
        if (field.required) throw errors.missingArgument(name);
        values[name] = field.default;
        continue;
      }
      values[name] = field.type.fromRaw(rawValue, usedName);
    }
    const ignored: string[] = [];
    for (const key of raw.keys()) if (!known.has(key)) ignored.push(key);
    return { values: values as ParamsOf<S>, ignored };
  };
}

/** The parameters of `names` a request sent (those it left out stay out, rather than becoming undefined). */
export function sentSettings(names: string[], p: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const n of names) if (p[n] !== undefined) out[n] = p[n];
  return out;
}
