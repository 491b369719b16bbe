// Validates success responses against the reference's OpenAPI document (../shared/spec/reference-openapi.yaml).
// test/helpers/http.ts runs every 2xx JSON answer under /api/v1 through `checkResponse`; a mismatch fails the test.
//
// Each test file runs in a process of its own, so what the check needs is made once and kept for the others: an index
// of the documented operations and a JSON copy of the document in the temporary directory, and each operation's
// validator, compiled on first use, as generated code with V8's code cache under node_modules/.cache (the validators
// of /register and /events are a megabyte of code: compiling them again took each process a second or more). They
// are named after the document and this module; most processes never parse the document. Before compiling, schemas
// are made plain JSON Schema:
// - `$ref`s are inlined and `allOf` branches merged into one object schema (properties and `required` joined,
//   closed when any branch says `additionalProperties: false`), so a closed branch does not reject the base's fields;
// - OpenAPI's `nullable: true` becomes "or null"; `oneOf` becomes `anyOf` (one documented shape must match);
// - a list of alternatives told apart by a `type` constant (the events of GET /events) is checked against the
//   alternatives of the event's own type only, so a mismatch names the fields of that event.
// Our contract spells the reference's `zulip_*` version fields `service_*`: they are read as `zulip_*`.
//
// OPENAPI_VALIDATION=off skips the check; OPENAPI_VALIDATION=report:<file> appends mismatches to <file> (one JSON
// line each) instead of failing, to survey the whole suite at once. Without the document (no ../shared, or
// REFERENCE_OPENAPI pointing nowhere) the check is skipped. Ajv and js-yaml are loaded only to compile a validator or
// parse the document, which most test processes never do (about 50 ms of CPU each).
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Ajv as AjvClass, ErrorObject, Options as AjvOptions, ValidateFunction } from 'ajv';
import { packageRoot } from '../../src/paths.js';

const require = createRequire(import.meta.url);

/** Where the reference schema and the reference server disagree, or a test sends what no server would: mismatches
 *  whose line (as in the failure message: pointer, complaint, value) matches `match` are not failures. */
export const SCHEMA_EXCEPTIONS: { operation: string; match: RegExp; reason: string }[] = [
  {
    operation: 'register-queue',
    match: /^\/reminders\/\d+ must (have required property 'scheduled_message_id'|NOT have additional properties '(reminder_id|reminder_target_message_id)')/,
    reason: "register's reminders are the reference server's reminder dicts (as in GET /reminders and the reminders events); its schema names ScheduledMessage",
  },
  {
    operation: 'get-events',
    match: /^\/events\/\d+ must NOT have additional properties 'local_message_id'/,
    reason: 'the sending queue\'s copy of a message event carries local_message_id (the reference server sends it; its schema omits it)',
  },
  {
    operation: 'get-events',
    match: /^\/events\/\d+(\/type must be equal to one of the allowed values .* got "(custom_test|wanted|unwanted|other_type|note|[a-z])"$| must match "then" schema)/,
    reason: 'events of these made-up types are published straight into the hub by the event-routing tests themselves',
  },
  {
    operation: 'get-user-presence',
    match: /^\/presence\/(website|aggregated) must NOT have additional properties '(client|pushable)'/,
    reason: 'the reference server\'s legacy presence dict has client (and pushable for website); its schema omits them',
  },
  {
    operation: 'get-own-user',
    match: /^\/ must NOT have additional properties '(bot_type|bot_owner_id)'/,
    reason: 'a bot\'s own record carries bot_type and bot_owner_id (the reference server\'s format_user_row); its schema omits them',
  },
];

type Json = any;

export const referencePath = process.env.REFERENCE_OPENAPI ?? path.join(packageRoot, '..', 'shared', 'spec', 'reference-openapi.yaml');

/** A documented operation, as the index of operations keeps it (the document itself is parsed only to compile a
 *  validator or explain a mismatch). */
interface Operation {
  id: string;
  method: string;
  template: string;
  pattern: RegExp;
  params: number;
  /** Its documented response statuses ("200", "2XX", …): true where the response has a JSON schema. */
  responses: Record<string, boolean>;
}

let doc: Json | null | undefined;
let operations: Operation[] | null | undefined;
interface Validators {
  /** Stops at the first mismatch: the cheap check every answer gets. */
  fast: ValidateFunction;
  /** Every mismatch, compiled only when an answer fails, for the message. */
  full?: ValidateFunction;
  /** Saves the V8 code of `fast` once it has run (see loadValidator). */
  saveCode?: () => void;
}
const compiled = new Map<string, Validators | null>();
const ajvs = new Map<boolean, AjvClass>();

/** The Ajv of fast validators (first mismatch only, with source code to cache) or of full ones (every mismatch). */
function ajv(full: boolean): AjvClass {
  let a = ajvs.get(full);
  if (!a) {
    const Ajv = require('ajv') as { default: new (o: AjvOptions) => AjvClass };
    const options: AjvOptions = { strict: false, allErrors: full, validateFormats: false, logger: false };
    ajvs.set(full, (a = new Ajv.default(full ? options : { ...options, code: { source: true } })));
  }
  return a;
}

/** Where compiled validators are kept between test processes (inside node_modules, so that the generated code's
 *  `require("ajv/dist/runtime/…")` resolves). */
const validatorCache = path.join(packageRoot, 'node_modules', '.cache', 'palaver-openapi');

/** Writes `data` to `file` whole or not at all (test processes share the file). */
function writeWhole(file: string, data: string | Buffer): void {
  const partial = `${file}.${process.pid}`;
  writeFileSync(partial, data);
  renameSync(partial, file);
}

function hash(...parts: (string | Buffer)[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  return h.digest('hex').slice(0, 24);
}

/** Names what the cached files were made from: the document and this module (whose normalization they carry). */
let sourceKey: string | undefined;
function docKey(): string {
  return (sourceKey ??= hash(readFileSync(referencePath), readFileSync(fileURLToPath(import.meta.url))));
}

/**
 * A validator from its generated code. The code of the large schemas (/register, /events) is a megabyte: V8 takes
 * about a second to compile it, in every test process. So it is run through vm.Script with V8's code cache, kept
 * next to it once the validator has run (`saveCode`) and used by the later processes (V8 checks it belongs to this
 * source and this V8, else compiles as usual).
 */
function loadValidator(file: string): { fast: ValidateFunction; saveCode?: () => void } {
  const codeFile = `${file}.v8`;
  const cachedData = existsSync(codeFile) ? readFileSync(codeFile) : undefined;
  const script = new vm.Script(`(function (exports, require, module) {${readFileSync(file, 'utf8')}\n})`, { filename: file, cachedData });
  const module = { exports: {} as Json };
  script.runInThisContext()(module.exports, createRequire(file), module);
  const fast = (module.exports.default ?? module.exports) as ValidateFunction;
  const fresh = cachedData === undefined || script.cachedDataRejected === true;
  return { fast, saveCode: fresh ? () => writeWhole(codeFile, script.createCachedData()) : undefined };
}

/** The fast validator of an operation's response: compiled once for all test processes, then loaded. */
function fastValidator(op: Operation, status: string): { fast: ValidateFunction; saveCode?: () => void } {
  const file = path.join(validatorCache, `${hash(docKey(), op.id, status)}.cjs`);
  if (existsSync(file)) {
    try {
      return loadValidator(file);
    } catch {
      // An unreadable copy is compiled again below.
    }
  }
  const fast = ajv(false).compile(schemaOf(op, status));
  mkdirSync(validatorCache, { recursive: true });
  const standalone = require('ajv/dist/standalone/index.js') as { default: (ajv: AjvClass, validate: ValidateFunction) => string };
  writeWhole(file, standalone.default(ajv(false), fast));
  return { fast };
}

/** The YAML document parsed, through a JSON copy in the temporary directory shared by the test processes
 *  (parsing the YAML takes about a second; each test file runs in its own process). */
function parseReference(): Json {
  const cache = path.join(tmpdir(), `palaver-reference-openapi-${docKey()}.json`);
  try {
    return JSON.parse(readFileSync(cache, 'utf8'));
  } catch {
    const { load } = require('js-yaml') as typeof import('js-yaml');
    const parsed = load(readFileSync(referencePath, 'utf8'));
    writeWhole(cache, JSON.stringify(parsed));
    return parsed;
  }
}

function checking(): boolean {
  return process.env.OPENAPI_VALIDATION !== 'off' && existsSync(referencePath);
}

/** The reference document, or null when it is not there. */
export function referenceDocument(): Json | null {
  if (doc === undefined) doc = checking() ? parseReference() : null;
  return doc;
}

type IndexEntry = Omit<Operation, 'pattern'>;

/** Every documented operation with its response statuses, from the document (an index of a few kilobytes, kept in
 *  the temporary directory: most test processes need no more of the document). */
function buildIndex(): IndexEntry[] {
  const entries: IndexEntry[] = [];
  for (const [template, item] of Object.entries<Json>(referenceDocument().paths)) {
    const params = template.match(/\{[^}]+\}/g)?.length ?? 0;
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      const op = item[method];
      if (!op) continue;
      const responses = Object.fromEntries(Object.keys(op.responses ?? {}).map((status) => [status, documentedSchema(op.responses[status]) !== undefined]));
      entries.push({ id: op.operationId ?? `${method} ${template}`, method: method.toUpperCase(), template, params, responses });
    }
  }
  return entries;
}

function loadOperations(): Operation[] | null {
  if (operations !== undefined) return operations;
  if (!checking()) return (operations = null);
  const cache = path.join(tmpdir(), `palaver-reference-operations-${docKey()}.json`);
  let entries: IndexEntry[];
  try {
    entries = JSON.parse(readFileSync(cache, 'utf8'));
  } catch {
    entries = buildIndex();
    writeWhole(cache, JSON.stringify(entries));
  }
  operations = entries.map((e) => {
    const source = e.template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{([^}]+)\}/g, '([^/]+)');
    return { ...e, pattern: new RegExp(`^${source}$`) };
  });
  // A literal segment wins over a parameter (/users/me before /users/{user_id}).
  operations.sort((a, b) => a.params - b.params);
  return operations;
}

/** Every documented operation: method, path template, operationId. */
export function referenceOperations(): { method: string; template: string; id: string }[] {
  return (loadOperations() ?? []).map(({ method, template, id }) => ({ method, template, id }));
}

/** The operation a request path (below /api/v1) names, if the reference documents it. */
export function findOperation(method: string, apiPath: string): Operation | undefined {
  return loadOperations()?.find((o) => o.method === method && o.pattern.test(apiPath));
}

function resolveRef(ref: string): Json {
  let node = doc;
  for (const part of ref.replace(/^#\//, '').split('/')) node = node[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  return node;
}

const DROPPED = new Set(['example', 'examples', 'description', 'deprecated', 'discriminator', 'readOnly', 'writeOnly']);

/** Plain JSON Schema from an OpenAPI schema object (see the head of this file). */
function normalize(node: Json, refs: string[] = []): Json {
  if (Array.isArray(node)) return node.map((n) => normalize(n, refs));
  if (node === null || typeof node !== 'object') return node;
  if (typeof node.$ref === 'string') {
    // A schema that contains itself is accepted as anything below its second appearance.
    if (refs.includes(node.$ref)) return {};
    return normalize(resolveRef(node.$ref), [...refs, node.$ref]);
  }
  let out: Json = {};
  for (const [k, v] of Object.entries<Json>(node)) {
    if (DROPPED.has(k) || k.startsWith('x-')) continue;
    if (k === 'properties' || k === 'patternProperties') {
      out[k] = Object.fromEntries(Object.entries<Json>(v).map(([p, s]) => [p, normalize(s, refs)]));
    } else if (k === 'oneOf') out.anyOf = normalize(v, refs);
    else out[k] = normalize(v, refs);
  }
  if (out.allOf) {
    const branches: Json[] = out.allOf;
    delete out.allOf;
    for (const b of branches) out = merge(out, b);
  }
  if (out.anyOf) out = byTypeConstant(out);
  if (out.nullable === true) {
    delete out.nullable;
    return { anyOf: [out, { type: 'null' }] };
  }
  delete out.nullable;
  return out;
}

function merge(a: Json, b: Json): Json {
  const out: Json = { ...a };
  for (const [k, v] of Object.entries<Json>(b)) {
    if (k === 'properties') {
      out.properties = { ...out.properties };
      for (const [p, s] of Object.entries<Json>(v)) out.properties[p] = out.properties[p] ? { allOf: [out.properties[p], s] } : s;
    } else if (k === 'required') out.required = [...new Set([...(out.required ?? []), ...v])];
    else if (k === 'additionalProperties') {
      if (v === false || out.additionalProperties === undefined) out.additionalProperties = v;
    } else if (k === 'anyOf' && out.anyOf) out.allOf = [...(out.allOf ?? []), { anyOf: v }];
    else out[k] = v;
  }
  return out;
}

/** Alternatives that each fix `type` to one value: each value's own alternatives, chosen by an if/then chain. */
function byTypeConstant(schema: Json): Json {
  const branches: Json[] = schema.anyOf;
  const typeOf = (b: Json): unknown => {
    const e = b?.properties?.type?.enum;
    return Array.isArray(e) && e.length === 1 ? e[0] : undefined;
  };
  if (branches.length < 3 || !branches.every((b) => typeOf(b) !== undefined)) return schema;
  const groups = new Map<unknown, Json[]>();
  for (const b of branches) groups.set(typeOf(b), [...(groups.get(typeOf(b)) ?? []), b]);
  const { anyOf: _drop, ...rest } = schema;
  return {
    ...rest,
    type: 'object',
    required: ['type'],
    properties: { type: { enum: [...groups.keys()] } },
    allOf: [...groups].map(([t, bs]) => ({
      if: { properties: { type: { const: t } }, required: ['type'] },
      then: bs.length === 1 ? bs[0] : { anyOf: bs },
    })),
  };
}

/** A documented response's JSON schema, if it has one. */
function documentedSchema(response: Json): Json | undefined {
  const r = response?.$ref ? resolveRef(response.$ref) : response;
  return r?.content?.['application/json']?.schema;
}

/** The documented status an answer's status falls under ("200", else "2XX"). */
function documentedStatus(op: Operation, status: number): string | undefined {
  return String(status) in op.responses ? String(status) : '2XX' in op.responses ? '2XX' : undefined;
}

/** The plain JSON Schema of an operation's response (from the document). */
function schemaOf(op: Operation, status: string): Json {
  const raw = (referenceDocument().paths[op.template][op.method.toLowerCase()].responses ?? {})[status];
  return normalize(documentedSchema(raw));
}

function validatorsFor(op: Operation, status: number): Validators | null {
  const documented = documentedStatus(op, status);
  if (documented === undefined || !op.responses[documented]) return null;
  const key = `${op.id} ${documented}`;
  let v = compiled.get(key);
  if (v === undefined) {
    v = fastValidator(op, documented);
    compiled.set(key, v);
  }
  return v;
}

const SERVICE_NAMES: Record<string, string> = {
  service_feature_level: 'zulip_feature_level',
  service_version: 'zulip_version',
  service_merge_base: 'zulip_merge_base',
};

/** The contract's `service_*` names read as the reference's `zulip_*` (which win when both are there). */
function asReference(value: Json): Json {
  if (Array.isArray(value)) return value.map(asReference);
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [k, v] of Object.entries<Json>(value)) {
    const alias = SERVICE_NAMES[k];
    if (alias) {
      if (!(alias in value)) out[alias] = v;
    } else out[k] = asReference(v);
  }
  return out;
}

/** One line per mismatch: pointer, complaint, the schema's place, the value found. */
function describe(e: ErrorObject, body: Json): string {
  let at: Json = body;
  for (const part of e.instancePath.split('/').slice(1)) at = at?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  const extra = e.keyword === 'additionalProperties' ? ` '${(e.params as { additionalProperty: string }).additionalProperty}'` : '';
  return `${e.instancePath || '/'} ${e.message}${extra} (${e.schemaPath}) got ${JSON.stringify(at)?.slice(0, 160)}`;
}

/** Checks one answer; throws (or reports, see the head of this file) when it is not what the reference documents. */
export function checkResponse(method: string, fullPath: string, status: number, contentType: string | undefined, text: string): void {
  if (status < 200 || status >= 300 || !fullPath.startsWith('/api/v1/') || !/json/.test(contentType ?? '')) return;
  const apiPath = fullPath.slice('/api/v1'.length).split('?')[0]!;
  const op = findOperation(method, apiPath);
  if (!op) return;
  const validators = validatorsFor(op, status);
  if (!validators) return;
  let body: Json;
  try {
    body = asReference(JSON.parse(text));
  } catch {
    return;
  }
  const valid = validators.fast(body);
  validators.saveCode?.();
  validators.saveCode = undefined;
  if (valid) return;
  validators.full ??= ajv(true).compile(schemaOf(op, documentedStatus(op, status)!));
  validators.full(body);
  const exceptions = SCHEMA_EXCEPTIONS.filter((x) => x.operation === op.id);
  const lines = (validators.full.errors ?? []).map((e) => describe(e, body)).filter((l) => !exceptions.some((x) => x.match.test(l)));
  if (lines.length === 0) return;
  const shown = lines.slice(0, 8).map((l) => `  ${l}`);
  if (lines.length > 8) shown.push(`  … ${lines.length - 8} more`);
  const message = `${method} ${apiPath} (${op.id}) answered ${status} with a body the reference OpenAPI does not allow:\n${shown.join('\n')}`;
  const mode = process.env.OPENAPI_VALIDATION ?? '';
  if (mode.startsWith('report:')) {
    appendFileSync(mode.slice('report:'.length), JSON.stringify({ operation: op.id, method, path: apiPath, message }) + '\n');
    return;
  }
  throw new Error(message);
}
