// Adds users of any role to a running test server's realm, visible to the server when the call returns.
import { hashPassword } from '../../src/auth/secrets.js';
import { createUser } from '../../src/realm/provision.js';
import type { Role } from '../../src/model/realm.js';
import type { Credentials } from './http.js';
import type { TestServer } from './server.js';

export interface TestUser extends Credentials {
  id: number;
  fullName: string;
  role: Role;
}

let counter = 0;

export async function addUser(
  s: TestServer,
  opts: { email?: string; fullName?: string; role?: Role; password?: string; isBot?: boolean; realm?: string } = {},
): Promise<TestUser> {
  const n = ++counter;
  const role = opts.role ?? 400;
  const email = opts.email ?? `user${n}-${role}@test.example`;
  const fullName = opts.fullName ?? `User ${n}`;
  const { db, realms } = s.server.services;
  const realmId = (await db.realms.byStringId(opts.realm ?? ''))!.id;
  const passwordHash = opts.password ? await hashPassword(opts.password, 12) : null;
  const user = await db.tx((t) =>
    createUser(t, realmId, { email, fullName, role, passwordHash, isBot: opts.isBot, botType: opts.isBot ? 1 : null }),
  );
  // The realm actor reloads its working set from the database before this returns.
  await (await realms.get(realmId)).dispatch('realm.reload');
  return { id: user.id, email, apiKey: user.apiKey, fullName, role };
}
