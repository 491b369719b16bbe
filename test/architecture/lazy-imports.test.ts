// Importing the server leaves out what most processes never use (each test file's process imports it, and so does
// every server start): these are loaded on first use (test/README.md "How long the suite takes").
import test from 'ava';
import { execFile } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What a fresh process reads when it imports `module`: every ES module it loads and every CommonJS one it requires. */
async function loadedBy(module: string): Promise<string[]> {
  const script = `
    import { createRequire, register } from 'node:module';
    import { MessageChannel } from 'node:worker_threads';
    const { port1, port2 } = new MessageChannel();
    const loaded = [];
    port1.on('message', (url) => loaded.push(url));
    const hook = 'let port; export function initialize(d) { port = d.port; } export async function load(url, context, next) { port.postMessage(url); return next(url, context); }';
    register('data:text/javascript,' + encodeURIComponent(hook), { data: { port: port2 }, transferList: [port2] });
    await import(${JSON.stringify(pathToFileURL(module).href)});
    await new Promise((resolve) => setTimeout(resolve, 200));
    port1.close();
    process.stdout.write(JSON.stringify([...loaded, ...Object.keys(createRequire(import.meta.url).cache)]));
  `;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { maxBuffer: 16 * 2 ** 20, env: { ...process.env, LOG_LEVEL: 'warn' } });
  return JSON.parse(stdout) as string[];
}

test('importing the server loads no image library, TeX, pretty logger, NATS client or highlighting grammar', async (t) => {
  const loaded = await loadedBy('dist/src/server.js');
  // The check sees what it should: the libraries every start needs are there.
  for (const needed of ['/node_modules/pg-promise/', '/node_modules/markdown-it/', '/node_modules/prismjs/prism.js']) {
    t.true(loaded.some((f) => f.includes(needed)), needed);
  }
  for (const lazy of ['/node_modules/sharp/', '/node_modules/katex/', '/node_modules/pino-pretty/', '/node_modules/@nats-io/', '/dist/src/cluster/index.js', '/node_modules/prismjs/components/prism-']) {
    t.deepEqual(
      loaded.filter((f) => f.includes(lazy)),
      [],
      `${lazy} is loaded on first use`,
    );
  }
});
