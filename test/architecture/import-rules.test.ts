// The import rules of .dependency-cruiser.cjs (the floors of docs/architecture.md): src/ keeps them, every rule
// fails on a violating import in a small tree made here, exceptions excuse exactly what they name, and every
// temporary exception still excuses some import of ours.
import test from 'ava';
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface Exception {
  name: string;
  lane: string;
  rule: string;
  from: string;
  to: string;
}

const root = fileURLToPath(new URL('../../../', import.meta.url));
const configPath = path.join(root, '.dependency-cruiser.cjs');
const config = createRequire(import.meta.url)(configPath) as { rules: { name: string }[]; temporaryExceptions: Exception[] };

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
  cycle?: { name: string }[];
}
interface CruiseResult {
  modules: { source: string; dependencies: { resolved: string }[] }[];
  summary: { violations: Violation[]; totalCruised: number; totalDependenciesCruised: number };
}

/** Runs the dependency-cruiser command line on `dir`/src with the rules at `rules`: its exit code and output. */
async function depcruise(dir: string, rules: string, outputType: 'json' | 'err'): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const pkg = JSON.parse(await readFile(path.join(root, 'node_modules/dependency-cruiser/package.json'), 'utf8'));
  const bin = path.join(root, 'node_modules/dependency-cruiser', pkg.bin.depcruise);
  const args = [bin, '--config', rules, '--output-type', outputType, 'src'];
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: dir, maxBuffer: 256 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ exitCode: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

/** The whole report, as JSON. */
async function cruise(dir: string, rules: string): Promise<CruiseResult> {
  const { exitCode, stdout, stderr } = await depcruise(dir, rules, 'json');
  try {
    return JSON.parse(stdout) as CruiseResult;
  } catch {
    throw new Error(`dependency-cruiser gave no report (exit ${exitCode}): ${stderr}`);
  }
}

const show = (v: Violation) => `${v.rule.name}: ${v.from} → ${v.cycle ? v.cycle.map((c) => c.name).join(' → ') : v.to}`;

const ourTree = cruise(root, configPath);

test('src/ keeps the import rules', async (t) => {
  const result = await ourTree;
  // A resolver that stopped seeing imports would pass every rule: the tree must look like ours.
  t.true(result.summary.totalCruised > 300, `only ${result.summary.totalCruised} modules cruised`);
  t.true(result.summary.totalDependenciesCruised > 1500, `only ${result.summary.totalDependenciesCruised} imports cruised`);
  t.deepEqual(result.summary.violations.map(show), [], 'see docs/architecture.md, "Layers"');
});

test('every temporary exception still excuses an import (remove it from .dependency-cruiser.cjs once none)', async (t) => {
  const result = await ourTree;
  const imports = result.modules.flatMap((m) => m.dependencies.map((d) => [m.source, d.resolved] as const));
  const stale = config.temporaryExceptions
    .filter((e) => !imports.some(([from, to]) => new RegExp(e.from).test(from) && new RegExp(e.to).test(to)))
    .map((e) => e.name);
  t.deepEqual(stale, []);
});

/** A small tree: each file and what it imports. Every rule is broken at least once, beside imports that are fine. */
const FIXTURE: Record<string, string[]> = {
  'src/server.ts': ['./http/routes/index.js'],
  'src/config.ts': ['./limits.js', './model/users.js', './narrow/index.js'],
  'src/model/users.ts': [],
  'src/limits.ts': [],
  'src/log.ts': ['../test/helpers/server.js'],
  'src/errors.ts': [],
  'src/http/routes/index.ts': ['./users.js', './uploads.js'],
  'src/http/routes/users.ts': ['./uploads.js', '../endpoint.js', '../../realm/state.js'],
  'src/http/routes/uploads.ts': ['../endpoint.js', './channels.js'],
  'src/http/routes/channels.ts': ['../endpoint.js'],
  'src/http/endpoint.ts': ['../actors/user-session.machine.js', '../realm/state.js', '../events/queues.js'],
  'src/files/service.ts': ['../http/endpoint.js', '../realm/state.js', '../webhooks/outgoing.js', '../actors/realms.js', '../events/queues.js'],
  'src/webhooks/outgoing.ts': [],
  'src/events/queues.ts': [],
  'src/events/snapshot.ts': [],
  'src/events/router.ts': ['../files/service.js', '../realm/state.js', '../actors/realms.js', '../bus/hub.js'],
  'src/actors/realms.ts': ['../events/queues.js', '../realm/state.js', '../bus/hub.js'],
  'src/actors/user-session.machine.ts': [],
  'src/actors/scheduled-delivery.machine.ts': [],
  'src/bus/hub.ts': ['./events.js', '../realm/types.js'],
  'src/bus/events.ts': ['../model/users.js', '../persistence/db.js'],
  'src/realm/state.ts': ['../persistence/db.js', './types.js', '../bus/hub.js', '../events/queues.js', '../events/snapshot.js', '../errors.js'],
  'src/realm/types.ts': [],
  'src/realm/orders.ts': ['../events/queues.js', '../events/snapshot.js', '../events/router.js', '../actors/realms.js', '../server.js', './missing.js'],
  'src/realm/people/presence.ts': ['../../actors/user-session.machine.js', '../../actors/scheduled-delivery.machine.js'],
  'src/persistence/db.ts': ['../config.js', '../narrow/index.js', './repos/users.js'],
  'src/persistence/repos/users.ts': ['../../model/users.js', '../../realm/types.js', '../../auth/secrets.js'],
  'src/auth/secrets.ts': [],
  'src/narrow/index.ts': ['./parse.js'],
  'src/narrow/parse.ts': ['./index.js'],
  'src/misc/thing.ts': ['../errors.js'],
  'test/helpers/server.ts': [],
};
/** A type-only import counts as any other. */
const TYPE_ONLY: Record<string, string> = { 'src/realm/people/bots.ts': '../../webhooks/outgoing.js' };

/** Exceptions of the fixture's own (overlapping ones included), so the test does not follow the list of the day. */
const FIXTURE_EXCEPTIONS: Exception[] = [
  { name: 'realm-queues', lane: 'test', rule: 'domain-imports-no-higher-floor', from: '^src/realm/', to: '^src/events/queues\\.ts$' },
  { name: 'orders-snapshot', lane: 'test', rule: 'domain-imports-no-higher-floor', from: '^src/realm/orders\\.ts$', to: '^src/events/snapshot\\.ts$' },
  { name: 'routes-channels', lane: 'test', rule: 'routes-import-no-other-route', from: '^src/http/routes/', to: '^src/http/routes/channels\\.ts$' },
  { name: 'presence-session', lane: 'test', rule: 'domain-imports-no-actor-keeper', from: '^src/realm/people/presence\\.ts$', to: '^src/actors/user-session\\.machine\\.ts$' },
];

const EXPECTED = [
  'ground-floor-imports-only-ground: src/config.ts → src/narrow/index.ts',
  'src-imports-no-test-or-bench: src/log.ts → test/helpers/server.ts',
  'routes-import-no-other-route: src/http/routes/users.ts → src/http/routes/uploads.ts',
  'nothing-below-http-imports-http: src/files/service.ts → src/http/endpoint.ts',
  'events-import-no-service: src/events/router.ts → src/files/service.ts',
  'actors-import-no-higher-floor: src/actors/realms.ts → src/events/queues.ts',
  'bus-imports-no-higher-floor: src/bus/hub.ts → src/realm/types.ts',
  'domain-imports-no-higher-floor: src/realm/state.ts → src/events/snapshot.ts',
  'domain-imports-no-higher-floor: src/realm/orders.ts → src/events/router.ts',
  'domain-imports-no-actor-keeper: src/realm/orders.ts → src/actors/realms.ts',
  'nothing-imports-an-entry: src/realm/orders.ts → src/server.ts',
  'imports-resolve: src/realm/orders.ts → ./missing.js',
  'domain-imports-no-actor-keeper: src/realm/people/presence.ts → src/actors/scheduled-delivery.machine.ts',
  'domain-imports-no-higher-floor: src/realm/people/bots.ts → src/webhooks/outgoing.ts',
  'library-imports-no-higher-floor: src/persistence/repos/users.ts → src/realm/types.ts',
  'no-cycles: src/narrow/index.ts → src/narrow/parse.ts → src/narrow/index.ts',
  'every-module-has-a-floor: src/misc/thing.ts → src/errors.ts',
];

test('every rule fails on a violating import, and exceptions excuse only what they name', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'palaver-import-rules-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }));
  const rules = path.join(dir, 'rules.cjs');
  await writeFile(rules, `module.exports = require(${JSON.stringify(configPath)}).rulesWith(${JSON.stringify(FIXTURE_EXCEPTIONS)});\n`);
  const files = { ...FIXTURE, ...Object.fromEntries(Object.keys(TYPE_ONLY).map((f) => [f, [] as string[]])) };
  for (const [file, imports] of Object.entries(files)) {
    const lines = imports.map((spec, i) => `import { x as x${i} } from '${spec}';`);
    if (TYPE_ONLY[file]) lines.push(`import type { Thing } from '${TYPE_ONLY[file]}';`, 'export type Uses = Thing;');
    lines.push('export const x = 1;', ...imports.map((_, i) => `export const y${i} = x${i};`));
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), lines.join('\n') + '\n');
  }

  const result = await cruise(dir, rules);
  t.deepEqual(result.summary.violations.map(show).sort(), [...EXPECTED].sort());
  // The form `npm run check:imports` prints: a failing command that names each broken rule.
  const { exitCode, stdout } = await depcruise(dir, rules, 'err');
  t.is(exitCode, EXPECTED.length);
  t.regex(stdout, /error domain-imports-no-actor-keeper: src\/realm\/orders\.ts → src\/actors\/realms\.ts/);
  t.deepEqual([...new Set(result.summary.violations.map((v) => v.rule.name))].sort(), config.rules.map((r) => r.name).sort(), 'each rule is shown failing');
});
