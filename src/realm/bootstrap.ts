// First start: an empty database gets the default realm and its owner.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { checkPasswordStrength } from '../auth/password-policy.js';
import { generatePassword, hashPassword } from '../auth/secrets.js';
import type { Config } from '../config.js';
import type { Db } from '../persistence/db.js';
import { realmUrl } from '../urls.js';
import { LIMITS } from '../limits.js';
import { createRealm, createUser, isValidEmail } from './provision.js';
import { ROLE } from '../model/realm.js';

const BOOTSTRAP_LOCK = 735_202;
export const DEFAULT_OWNER_EMAIL = 'owner@palaver.local';
export const CREDENTIALS_FILE = 'owner-credentials.json';

export interface Bootstrapped {
  email: string;
  apiKey: string;
  /** Set when the password was generated here rather than given. */
  generatedPassword: string | null;
  credentialsFile: string | null;
}

/** A given owner password must meet the password policy a user's would (a generated one always does). */
async function checkGivenPassword(password: string): Promise<void> {
  try {
    await checkPasswordStrength(password);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new Error(
      `PALAVER_OWNER_PASSWORD does not meet the password policy (${LIMITS.password_min_length} to ` +
        `${LIMITS.password_max_length} characters, not easily guessed): ${why} Choose another, or leave it unset to have one generated.`,
    );
  }
}

/** Creates the default realm and owner when there are no realms; null when there already were. */
export async function bootstrap(db: Db, config: Config): Promise<Bootstrapped | null> {
  const email = config.ownerEmail ?? DEFAULT_OWNER_EMAIL;
  if (!isValidEmail(email)) throw new Error(`PALAVER_OWNER_EMAIL is not a valid email address: ${email}`);
  if (config.ownerPassword && (await db.realms.count()) === 0) await checkGivenPassword(config.ownerPassword);
  const generatedPassword = config.ownerPassword ? null : generatePassword();
  const password = config.ownerPassword ?? generatedPassword!;
  const passwordHash = await hashPassword(password, config.passwordHashCost);
  const created = await db.tx('bootstrap', async (t) => {
    await t.one('SELECT pg_advisory_xact_lock($1)', [BOOTSTRAP_LOCK]);
    if ((await t.realms.count()) > 0) return null;
    const realm = await createRealm(t, { stringId: '', name: 'Palaver' });
    return createUser(t, realm.id, {
      email,
      fullName: config.ownerName ?? 'Owner',
      role: ROLE.OWNER,
      passwordHash,
      canCreateUsers: true,
    });
  });
  if (!created) return null;
  let credentialsFile: string | null = null;
  if (generatedPassword) {
    mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
    credentialsFile = path.join(config.dataDir, CREDENTIALS_FILE);
    const creds = { realm_url: realmUrl(config, ''), email, password: generatedPassword, api_key: created.apiKey };
    writeFileSync(credentialsFile, JSON.stringify(creds, null, 2) + '\n', { mode: 0o600 });
  }
  return { email, apiKey: created.apiKey, generatedPassword, credentialsFile };
}
