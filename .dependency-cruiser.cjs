// Import rules: the floors of docs/architecture.md ("Layers"), checked by dependency-cruiser on src/.
// `npm run check:imports` prints the report; test/architecture/import-rules.test.ts runs the same check inside
// `npm test`, and shows on a small tree of its own that every rule below fails on a violating import.
// Type-only imports count (tsPreCompilationDeps): a type imported from upstairs ties the floors together as surely
// as a value does, and it is what the next move of a module trips over.

/** The floors, top to bottom. A file imports its own floor and the floors below it, never one above. */
const floors = {
  /** The programs: the server's assembly and the admin CLI. */
  entry: '^src/(server|main)\\.ts$|^src/cli/',
  /** The HTTP and WebSocket surface: the pipeline, the endpoints (routes/), replies. */
  http: '^src/http/',
  /** Work beside the request path that finds realm actors: uploads and thumbnails, mail, export, operators,
   *  outgoing webhooks, cluster transport. */
  services: '^src/(files|mail|export|operators|webhooks|cluster)/',
  /** Clients' event queues: registration, the router, long polls, the register snapshot. */
  events: '^src/events/',
  /** The actors and the one system that starts, finds and stops them. */
  actors: '^src/actors/',
  /** The domain: a realm's working set, its commands, access rules and the events they produce. */
  domain: '^src/realm/',
  /** The internal event bus the domain publishes on. */
  bus: '^src/bus/',
  /** Libraries of our own: the database, narrows, Markdown and its worker pool, password rules, the event-socket
   *  client (for programs outside the server: tests, bench, anyone's). */
  library: '^src/(persistence|narrow|markdown|auth|render-pool|client)/',
  /** Everyone's: errors, parameters, URLs, configuration, limits, logging, the model types. */
  ground: '^src/[^/]+\\.ts$|^src/model/',
};

/**
 * Upward imports allowed for a while, by name, while a move is under way (none today).
 * `from` and `to` are path patterns; the rule named in `rule` does not apply to an import matching both.
 * The rule test fails when an exception no longer matches any import: then remove it from this list.
 */
const temporaryExceptions = [];

/**
 * `floor` imports no floor above it from services down to `upTo` (its own floor unless given); the rules for http
 * and the entries cover those floors for everyone.
 */
function importsNoHigherFloor(name, floor, comment, upTo = floor) {
  const order = Object.keys(floors);
  const above = order.slice(order.indexOf('services'), order.indexOf(upTo)).map((n) => floors[n]).join('|');
  return { name, comment, from: { path: floors[floor] }, to: { path: above } };
}

const rules = [
  {
    name: 'nothing-imports-an-entry',
    comment: 'server.ts, main.ts and cli/ start a program; nothing else imports them.',
    from: { path: '^src/', pathNot: floors.entry },
    to: { path: floors.entry },
  },
  {
    name: 'nothing-below-http-imports-http',
    comment: 'Nothing below the HTTP floor reaches into it: what a lower floor needs of a request is passed down.',
    from: { path: '^src/', pathNot: `${floors.entry}|${floors.http}` },
    to: { path: floors.http },
  },
  {
    name: 'routes-import-no-other-route',
    comment: 'A route file imports no other route file; what two routes share lives in http/ or lower.',
    from: { path: '^src/http/routes/([^/]+)\\.ts$', pathNot: '^src/http/routes/index\\.ts$' },
    to: { path: '^src/http/routes/', pathNot: '^src/http/routes/$1\\.ts$' },
  },
  importsNoHigherFloor('events-import-no-service', 'events',
    'The event queues import the actors, the domain and lower; services use them, not the reverse.'),
  importsNoHigherFloor('actors-import-no-higher-floor', 'actors',
    'The actors run the domain; the event queues and the services that use them are not theirs to import.'),
  {
    name: 'domain-imports-no-actor-keeper',
    comment: 'realm/ runs inside the realm actor and never reaches the actors that keep it.',
    from: { path: floors.domain },
    to: { path: floors.actors },
  },
  // Up to the actors: the rule above names that import for what it is.
  importsNoHigherFloor('domain-imports-no-higher-floor', 'domain',
    'realm/ imports the bus, the libraries and the ground floor only.', 'actors'),
  importsNoHigherFloor('bus-imports-no-higher-floor', 'bus',
    'The bus carries the domain\'s events and imports only the libraries and the ground floor.'),
  importsNoHigherFloor('library-imports-no-higher-floor', 'library',
    'persistence, narrow, markdown, auth and render-pool import each other and the ground floor only.'),
  {
    name: 'ground-floor-imports-only-ground',
    comment: 'The files directly in src/ and the model types import only each other (and packages).',
    from: { path: floors.ground, pathNot: floors.entry },
    to: { path: '^src/.+/', pathNot: '^src/model/' },
  },
  {
    name: 'every-module-has-a-floor',
    comment: 'A new folder of src/ gets its floor in .dependency-cruiser.cjs and docs/architecture.md first.',
    from: { path: '^src/', pathNot: Object.values(floors).join('|') },
    to: {},
  },
  {
    name: 'no-cycles',
    comment: 'No import cycle, type-only imports included.',
    from: { path: '^src/' },
    to: { circular: true },
  },
  {
    name: 'src-imports-no-test-or-bench',
    comment: 'The server never depends on its tests or benchmarks.',
    from: { path: '^src/' },
    to: { path: '^(test|bench)/' },
  },
  {
    name: 'imports-resolve',
    comment: 'Every import resolves to a file or an installed package (an unresolved one would escape every rule above).',
    from: { path: '^src/' },
    to: { couldNotResolve: true },
  },
];

/**
 * A rule with its exceptions carved out, exactly: a file matched by the `from` of some of the rule's exceptions may
 * import those exceptions' `to` and nothing else the rule forbids. One copy of the rule per combination of exceptions
 * (a handful at most), each for the files that match exactly those `from` patterns.
 */
function withExceptions(rule, exceptions) {
  const own = exceptions.filter((e) => e.rule === rule.name);
  if (own.length > 4) throw new Error(`rule ${rule.name}: more than 4 exceptions; give it fewer, wider ones`);
  const copies = [];
  for (let mask = 0; mask < 2 ** own.length; mask++) {
    const inside = own.filter((_, i) => mask & (2 ** i));
    const outside = own.filter((_, i) => !(mask & (2 ** i)));
    const from = { ...rule.from, pathNot: [rule.from.pathNot, ...outside.map((e) => e.from)].filter(Boolean) };
    // Lookaheads AND the patterns (a capture group in the rule's own pattern still captures, for `$1` in `to`).
    if (inside.length > 0) from.path = [rule.from.path, ...inside.map((e) => e.from)].map((p) => `(?=${p})`).join('');
    const to = { ...rule.to, pathNot: [rule.to.pathNot, ...inside.map((e) => e.to)].filter(Boolean) };
    const comment = inside.length === 0 ? rule.comment : `${rule.comment} Temporary exceptions: ${inside.map((e) => `${e.name} (${e.lane})`).join(', ')}.`;
    copies.push({ ...rule, comment, from, to });
  }
  return copies;
}

/** The dependency-cruiser configuration with `exceptions` carved out of the rules. */
function rulesWith(exceptions) {
  for (const e of exceptions) {
    if (!rules.some((r) => r.name === e.rule)) throw new Error(`temporary exception ${e.name} names no rule: ${e.rule}`);
    if (!e.from.startsWith('^') || !e.to.startsWith('^')) throw new Error(`temporary exception ${e.name}: anchor its patterns with ^`);
  }
  return {
    forbidden: rules.flatMap((r) => withExceptions(r, exceptions)).map((r) => ({ severity: 'error', ...r })),
    options: {
      tsPreCompilationDeps: true,
      tsConfig: { fileName: 'tsconfig.json' },
      doNotFollow: { path: 'node_modules' },
      exclude: { path: '^(dist|node_modules)/' },
    },
  };
}

module.exports = rulesWith(temporaryExceptions);
// For the rule test (not dependency-cruiser's configuration, whose schema allows no other keys).
Object.defineProperties(module.exports, {
  rules: { value: rules, enumerable: false },
  rulesWith: { value: rulesWith, enumerable: false },
  temporaryExceptions: { value: temporaryExceptions, enumerable: false },
});
