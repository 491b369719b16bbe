// A throwaway database per test file: a fresh database on DATABASE_URL's server, or none (embedded PGlite).
import { createScratchDatabase, type ScratchDatabase } from '../../bench/lib/database.js';

export type TestDatabase = ScratchDatabase;

/** null when DATABASE_URL is unset: the server then uses its embedded database. */
export async function createTestDatabase(): Promise<TestDatabase | null> {
  const base = process.env.DATABASE_URL;
  return base ? createScratchDatabase(base, 'palaver_t') : null;
}
