// Set-up requests in parallel, a bounded number at a time: the server answers several while one waits on the network
// or the database, and the load generator never holds more than `width` of them open.

/** Calls `each(i)` for i = 0 … count − 1, at most `width` at once; rejects with the first failure. */
export async function forEachBounded(count: number, width: number, each: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, count) }, async () => {
      while (next < count) await each(next++);
    }),
  );
}
