// The admin CLI: non-interactive commands that print JSON. Writes note the realm in the change log so a
// running server reloads it.
import { parseArgs } from 'node:util';
import { hashNewPassword } from '../auth/password-policy.js';
import { loadConfig } from '../config.js';
import { createDatabase, type Database, type Db, type Repos } from '../persistence/db.js';
import { findRunningEmbedded, startEmbedded, type EmbeddedDatabase } from '../persistence/embedded.js';
import { migrate } from '../persistence/migrate.js';
import { createRealm, createUser, isValidEmail, STRING_ID_RE } from '../realm/provision.js';
import { ROLE, ROLES, type Role } from '../model/realm.js';
import { realmEmailDomain } from '../realm/user-emails.js';
import { formatUser } from '../realm/user-format.js';
import { realmUrl } from '../urls.js';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { LocalDiskStorage } from '../files/storage.js';
import { exportRealm } from '../export/export.js';
import { importRealm } from '../export/import.js';
import { CheckFailed, parseCredentials, runCheck, type CheckCredentials } from './check.js';

class UsageError extends Error {}

const ROLE_NAMES: Record<string, Role> = {
  owner: ROLE.OWNER,
  administrator: ROLE.ADMINISTRATOR,
  admin: ROLE.ADMINISTRATOR,
  moderator: ROLE.MODERATOR,
  member: ROLE.MEMBER,
  guest: ROLE.GUEST,
};

const HELP = `Usage: palaver <command> [options]   (prints JSON)
  list-realms
  create-realm --subdomain SUB --name NAME [--owner-email E --owner-password P --owner-name N]
  create-user --email E --full-name N [--realm SUB] [--role owner|administrator|moderator|member|guest] [--password P] [--bot]
  change-password --email E --password P [--realm SUB]
  deactivate-user --email E [--realm SUB]      reactivate-user --email E [--realm SUB]
  deactivate-realm --realm SUB                 reactivate-realm --realm SUB
  list-users [--realm SUB]
  export --realm SUB --out FILE                 the realm's full export archive (format: src/export/archive.ts)
  import --file FILE [--subdomain NEW]          loads an export as a new realm (new IDs; the archive's subdomain
                                                unless --subdomain; refused when that subdomain is taken)
  check [--url URL] [--realm SUB] [--sender EMAIL:KEY --recipient EMAIL:KEY] [--timeout-ms N]
      end-to-end self-check of a running server: a direct message sent and received through an event queue,
      timed; without credentials it uses two check users it creates in the realm (database access needed)
The default realm's subdomain is the empty string. Database: DATABASE_URL, else the embedded one under DATA_DIR.`;

const OPTIONS = {
  subdomain: { type: 'string' },
  realm: { type: 'string', default: '' },
  name: { type: 'string' },
  email: { type: 'string' },
  'full-name': { type: 'string' },
  role: { type: 'string', default: 'member' },
  password: { type: 'string' },
  bot: { type: 'boolean', default: false },
  'owner-email': { type: 'string' },
  'owner-password': { type: 'string' },
  'owner-name': { type: 'string' },
  help: { type: 'boolean', default: false },
  url: { type: 'string' },
  sender: { type: 'string' },
  recipient: { type: 'string' },
  'timeout-ms': { type: 'string', default: '10000' },
  out: { type: 'string' },
  file: { type: 'string' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

function need(values: Values, name: keyof Values): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

function parseRole(raw: string): Role {
  const byName = ROLE_NAMES[raw.toLowerCase()];
  if (byName) return byName;
  const n = Number(raw);
  if (ROLES.includes(n as Role)) return n as Role;
  throw new UsageError(`unknown role ${raw}`);
}

async function realmId(db: Repos, subdomain: string): Promise<number> {
  const realm = await db.realms.byStringId(subdomain);
  if (!realm) throw new Error(`no realm with subdomain ${JSON.stringify(subdomain)}`);
  return realm.id;
}

async function userIn(db: Repos, subdomain: string, email: string) {
  const id = await realmId(db, subdomain);
  const user = await db.users.byEmail(id, email);
  if (!user) throw new Error(`no user ${email} in realm ${JSON.stringify(subdomain)}`);
  return user;
}

async function run(command: string, values: Values, db: Db): Promise<unknown> {
  const config = loadConfig();
  const cost = config.passwordHashCost;
  switch (command) {
    case 'list-realms': {
      const realms = await db.realms.all();
      return {
        realms: realms.map((r) => ({
          id: r.id,
          subdomain: r.stringId,
          name: r.name,
          url: realmUrl(config, r.stringId),
          deactivated: r.deactivated,
          date_created: r.dateCreated,
        })),
      };
    }
    case 'create-realm': {
      if (values.subdomain === undefined) throw new UsageError('--subdomain is required (the empty string for the root domain)');
      const subdomain = values.subdomain.toLowerCase();
      if (!STRING_ID_RE.test(subdomain)) throw new UsageError('--subdomain must be letters, digits and dashes');
      const name = need(values, 'name');
      const ownerEmail = values['owner-email'];
      if (ownerEmail !== undefined && !isValidEmail(ownerEmail)) throw new UsageError('invalid --owner-email');
      const ownerHash = values['owner-password'] ? await hashNewPassword(values['owner-password'], cost) : null;
      return db.tx(async (t) => {
        if (await t.realms.byStringId(subdomain)) throw new Error(`a realm with subdomain ${subdomain} exists`);
        const realm = await createRealm(t, { stringId: subdomain, name });
        const out: Record<string, unknown> = { realm_id: realm.id, subdomain, name, url: realmUrl(config, subdomain) };
        if (ownerEmail) {
          const owner = await createUser(t, realm.id, {
            email: ownerEmail,
            fullName: values['owner-name'] ?? 'Owner',
            role: ROLE.OWNER,
            passwordHash: ownerHash,
            canCreateUsers: true,
          });
          out.owner = { user_id: owner.id, email: owner.email, api_key: owner.apiKey };
        }
        await t.changes.record(null);
        return out;
      });
    }
    case 'create-user': {
      const email = need(values, 'email');
      if (!isValidEmail(email)) throw new UsageError('invalid --email');
      const fullName = need(values, 'full-name');
      const role = parseRole(values.role ?? 'member');
      const passwordHash = values.password ? await hashNewPassword(values.password, cost) : null;
      return db.tx(async (t) => {
        const id = await realmId(t, values.realm ?? '');
        if (await t.users.byEmail(id, email)) throw new Error('Email is already in use.');
        const user = await createUser(t, id, {
          email,
          fullName,
          role,
          passwordHash,
          isBot: values.bot,
          botType: values.bot ? 1 : null,
        });
        await t.changes.record(id);
        return { user_id: user.id, email: user.email, full_name: user.fullName, role: user.role, api_key: user.apiKey };
      });
    }
    case 'change-password': {
      const hash = await hashNewPassword(need(values, 'password'), cost);
      return db.tx(async (t) => {
        const user = await userIn(t, values.realm ?? '', need(values, 'email'));
        await t.users.setPasswordHash(user.id, hash);
        await t.changes.record(user.realmId);
        return { user_id: user.id, email: user.email };
      });
    }
    case 'deactivate-user':
    case 'reactivate-user': {
      const active = command === 'reactivate-user';
      return db.tx(async (t) => {
        const user = await userIn(t, values.realm ?? '', need(values, 'email'));
        await t.users.setActive(user.id, active);
        if (!active) await t.invites.revokeByCreators([user.id]);
        await t.changes.record(user.realmId);
        return { user_id: user.id, email: user.email, is_active: active };
      });
    }
    case 'deactivate-realm':
    case 'reactivate-realm': {
      const deactivated = command === 'deactivate-realm';
      return db.tx(async (t) => {
        const id = await realmId(t, values.realm ?? '');
        await t.realms.setDeactivated(id, deactivated);
        await t.changes.record(id);
        return { realm_id: id, deactivated };
      });
    }
    case 'list-users': {
      const subdomain = values.realm ?? '';
      const users = await db.users.forRealm(await realmId(db, subdomain));
      const emailDomain = realmEmailDomain(subdomain, config.rootDomain);
      return { users: users.map((u) => formatUser(u, { includeDeliveryEmail: true, emailDomain })) };
    }
    case 'export': {
      const out = need(values, 'out');
      const id = await realmId(db, values.realm ?? '');
      const file = createWriteStream(out, { flags: 'wx' });
      try {
        const summary = await exportRealm(db, new LocalDiskStorage(config.files.dir), { realmId: id, type: 'full' }, file);
        return { realm_id: id, out, ...summary };
      } catch (err) {
        // Not an existing file (wx refused it): a partial archive of ours.
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') await rm(out, { force: true });
        throw err;
      }
    }
    case 'import': {
      const file = need(values, 'file');
      if (values.subdomain !== undefined && !STRING_ID_RE.test(values.subdomain.toLowerCase())) throw new UsageError('--subdomain must be letters, digits and dashes');
      return importRealm(db, new LocalDiskStorage(config.files.dir), file, { subdomain: values.subdomain });
    }
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  }
}

/** The server's running embedded database if there is one, else the embedded database opened here. */
async function openDatabase(): Promise<{ database: Database; embedded: EmbeddedDatabase | null }> {
  const config = loadConfig();
  if (config.databaseUrl) return { database: createDatabase(config.databaseUrl, { max: 2 }), embedded: null };
  const running = await findRunningEmbedded(config.dataDir);
  if (running) return { database: createDatabase(running, { max: 1 }), embedded: null };
  const embedded = await startEmbedded(config.dataDir, config.embeddedDb);
  return { database: createDatabase(embedded.connection, { max: 1 }), embedded };
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    process.stderr.write(JSON.stringify({ result: 'error', msg: (e as Error).message }) + '\n' + HELP + '\n');
    return 2;
  }
  const command = parsed.positionals[0];
  if (!command || parsed.values.help) {
    process.stdout.write(HELP + '\n');
    return command || parsed.values.help ? 0 : 2;
  }
  if (command === 'check') return check(parsed.values);
  const { database, embedded } = await openDatabase();
  try {
    await migrate(database.db);
    const out = await run(command, parsed.values, database.db);
    process.stdout.write(JSON.stringify({ result: 'success', ...(out as object) }, null, 2) + '\n');
    return 0;
  } catch (e) {
    process.stderr.write(JSON.stringify({ result: 'error', msg: (e as Error).message }) + '\n');
    if (e instanceof UsageError) process.stderr.write(HELP + '\n');
    return e instanceof UsageError ? 2 : 1;
  } finally {
    await database.close();
    await embedded?.stop();
  }
}

/** Two users for `check`, created once per realm and reused (their keys read from the database). */
async function checkUsers(db: Db, subdomain: string): Promise<{ sender: CheckCredentials; recipient: CheckCredentials }> {
  return db.tx(async (t) => {
    const id = await realmId(t, subdomain);
    let created = false;
    const get = async (email: string, fullName: string) => {
      let user = await t.users.byEmail(id, email);
      if (!user) {
        user = await createUser(t, id, { email, fullName, role: ROLE.MEMBER, passwordHash: null });
        created = true;
      }
      return { email: user.email, apiKey: user.apiKey };
    };
    const pair = { sender: await get('check-sender@palaver-check.example', 'Palaver check (sender)'), recipient: await get('check-recipient@palaver-check.example', 'Palaver check (recipient)') };
    // Only a new user needs the server to reload the realm; a repeated check (monitoring) must not reload it every time.
    if (created) await t.changes.record(id);
    return pair;
  });
}

async function check(values: Values): Promise<number> {
  const config = loadConfig();
  try {
    const url = values.url ?? `http://${config.host}:${config.port}`;
    const subdomain = values.realm ?? '';
    const timeoutMs = Number(values['timeout-ms']);
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new UsageError('--timeout-ms must be a positive integer');
    if ((values.sender === undefined) !== (values.recipient === undefined)) throw new UsageError('give both --sender and --recipient, or neither');
    let users: { sender: CheckCredentials; recipient: CheckCredentials };
    if (values.sender !== undefined && values.recipient !== undefined) {
      users = { sender: parseCredentials('sender', values.sender), recipient: parseCredentials('recipient', values.recipient) };
    } else {
      const { database, embedded } = await openDatabase();
      try {
        users = await checkUsers(database.db, subdomain);
      } finally {
        await database.close();
        await embedded?.stop();
      }
    }
    const port = new URL(url).port;
    const host = subdomain ? `${subdomain}.${config.rootDomain}${port ? ':' + port : ''}` : undefined;
    const result = await runCheck({ url, host, ...users, timeoutMs });
    process.stdout.write(JSON.stringify({ result: 'success', url, sender: users.sender.email, recipient: users.recipient.email, ...result }, null, 2) + '\n');
    return 0;
  } catch (e) {
    const step = e instanceof CheckFailed ? { step: e.step } : {};
    process.stderr.write(JSON.stringify({ result: 'error', ...step, msg: (e as Error).message }) + '\n');
    if (e instanceof UsageError) process.stderr.write(HELP + '\n');
    return e instanceof UsageError ? 2 : 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
