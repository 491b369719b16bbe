// Preloaded into a child server (`--expose-gc --import …/gc-probe.js`) by the memory tests: on SIGUSR2 a full
// collection, then the V8 heap still in use — the live objects, which a leak makes grow — is written to stderr as
// `gc-probe heap-used <bytes>`. A reading at a random moment would also count garbage not yet collected.
process.on('SIGUSR2', () => {
  (globalThis as { gc?: () => void }).gc?.();
  process.stderr.write(`gc-probe heap-used ${process.memoryUsage().heapUsed}\n`);
});
