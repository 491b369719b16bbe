// Custom profile fields over HTTP: administrators create, change, reorder and delete fields of every type; users
// set and remove their values; profile_data on user records; custom_profile_fields and realm_user events.
import test from 'ava';
import type { Credentials } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser, type TestUser } from '../helpers/users.js';
import { expectError } from '../helpers/errors.js';
import { verifyAction } from '../helpers/verify-action.js';

let s: TestServer;
let admin: TestUser;
test.before(async () => {
  s = await startTestServer();
  admin = await addUser(s, { role: 200 });
});
test.after.always(() => s?.close());

let n = 0;
const label = (p: string) => `${p} ${++n}`;
const json = (x: unknown) => JSON.stringify(x);

async function create(as: Credentials, form: Record<string, string>) {
  return s.client.as(as).post('/realm/profile_fields', { form });
}
async function field(form: Record<string, string>): Promise<number> {
  const r = await create(admin, form);
  if (r.status !== 200) throw new Error(r.text);
  return r.json.id;
}
const fields = async () => (await s.client.as(admin).get('/realm/profile_fields')).json.custom_fields as any[];
const setOwn = (as: Credentials, data: unknown) => s.client.as(as).patch('/users/me/profile_data', { form: { data: json(data) } });
const profileOf = async (viewer: Credentials, userId: number) =>
  (await s.client.as(viewer).get(`/users/${userId}`, { query: { include_custom_profile_fields: 'true' } })).json.user.profile_data;


const OPTIONS = { '0': { text: 'Vim', order: '1' }, '1': { text: 'Emacs', order: '2' } };

test.serial('an administrator creates a field of every type; GET lists them in order with the reference shape', async (t) => {
  const before = (await fields()).length;
  const ids = [
    await field({ name: label('Phone'), field_type: '1', hint: 'Work phone' }),
    await field({ name: label('Biography'), field_type: '2' }),
    await field({ name: label('Editor'), field_type: '3', field_data: json(OPTIONS), display_in_profile_summary: 'true' }),
    await field({ name: label('Birthday'), field_type: '4' }),
    await field({ name: label('Website'), field_type: '5', required: 'true' }),
    await field({ name: label('Mentor'), field_type: '6', editable_by_user: 'false' }),
    await field({ name: label('Mastodon'), field_type: '7', field_data: json({ subtype: 'custom', url_pattern: 'https://mastodon.social/@%(username)s' }) }),
    await field({ name: label('Pronouns'), field_type: '8' }),
  ];
  const list = await fields();
  t.deepEqual(list.slice(before).map((f) => f.id), ids);
  const editor = list.find((f) => f.id === ids[2]);
  t.deepEqual(editor, {
    id: ids[2], name: editor.name, type: 3, hint: '', field_data: json(OPTIONS), order: ids[2], required: false, editable_by_user: true,
    display_in_profile_summary: true,
  });
  const phone = list.find((f) => f.id === ids[0]);
  t.deepEqual(Object.keys(phone).sort(), ['editable_by_user', 'field_data', 'hint', 'id', 'name', 'order', 'required', 'type']);
  t.is(phone.field_data, '');
  t.is(phone.hint, 'Work phone');
  t.is(list.find((f) => f.id === ids[4]).required, true);
  t.is(list.find((f) => f.id === ids[5]).editable_by_user, false);
  // Members may read the list too.
  const member = await addUser(s);
  t.deepEqual((await s.client.as(member).get('/realm/profile_fields')).json.custom_fields, list);
  for (const id of ids) await s.client.as(admin).delete(`/realm/profile_fields/${id}`);
});

test('a default external account takes its name from the reference\'s defaults and cannot be renamed', async (t) => {
  const id = await field({ field_type: '7', field_data: json({ subtype: 'github' }) });
  const f = (await fields()).find((x) => x.id === id);
  t.is(f.name, 'GitHub username');
  t.is(f.field_data, json({ subtype: 'github' }));
  expectError(t, await s.client.as(admin).patch(`/realm/profile_fields/${id}`, { form: { name: 'Other' } }), 'Default custom field cannot be updated.');
  // display_in_profile_summary may change.
  t.is((await s.client.as(admin).patch(`/realm/profile_fields/${id}`, { form: { display_in_profile_summary: 'true' } })).status, 200);
  t.is((await s.client.as(admin).delete(`/realm/profile_fields/${id}`)).status, 200);
});

test('creation is refused with the reference\'s messages', async (t) => {
  const member = await addUser(s);
  const moderator = await addUser(s, { role: 300 });
  for (const who of [member, moderator]) {
    expectError(t, await create(who, { name: label('x'), field_type: '1' }), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  }
  const cases: [Record<string, string>, string][] = [
    [{ name: '  ', field_type: '1' }, 'Label cannot be blank.'],
    [{ name: 'x'.repeat(41), field_type: '1' }, 'name is too long (limit: 40 characters)'],
    [{ name: label('h'), hint: 'x'.repeat(81), field_type: '1' }, 'hint is too long (limit: 80 characters)'],
    [{ name: label('t'), field_type: '9' }, 'Invalid field type.'],
    [{ name: label('s'), field_type: '3' }, 'Field must have at least one choice.'],
    [{ name: label('s'), field_type: '3', field_data: json({ a: { text: 'A' } }) }, 'order key is missing from field_data["a"]'],
    [{ name: label('e'), field_type: '7', field_data: json({ subtype: 'myspace' }) }, 'Invalid external account type'],
    [{ name: label('e'), field_type: '7', field_data: json({ subtype: 'custom' }) }, 'Custom external account must define URL pattern'],
    [{ name: label('e'), field_type: '7', field_data: json({ subtype: 'custom', url_pattern: 'https://x.example/' }) }, "URL pattern must contain '%(username)s'."],
    [{ name: label('l'), field_type: '2', display_in_profile_summary: 'true' }, 'Field type not supported for display in profile summary.'],
  ];
  for (const [form, msg] of cases) expectError(t, await create(admin, form), msg);
  const name = label('Unique');
  const id = await field({ name, field_type: '1' });
  expectError(t, await create(admin, { name, field_type: '2' }), 'A field with that label already exists.');
  await s.client.as(admin).delete(`/realm/profile_fields/${id}`);
  t.is((await create(admin, { name: label('x') })).json.msg, "Missing 'field_type' argument");
});

test.serial('at most two fields are shown in the profile summary', async (t) => {
  const shown = (await fields()).filter((f) => f.display_in_profile_summary).length;
  const made: number[] = [];
  for (let i = shown; i < 2; i++) made.push(await field({ name: label('Shown'), field_type: '1', display_in_profile_summary: 'true' }));
  expectError(
    t,
    await create(admin, { name: label('Third'), field_type: '1', display_in_profile_summary: 'true' }),
    'Only 2 custom profile fields can be displayed in the profile summary.',
  );
  for (const id of made) await s.client.as(admin).delete(`/realm/profile_fields/${id}`);
});

test.serial('create, update, reorder and delete: custom_profile_fields events keep register consistent', async (t) => {
  const member = await addUser(s);
  let id = 0;
  const events = await verifyAction(t, s, member, async () => {
    id = await field({ name: label('Team'), field_type: '1' });
  });
  t.is(events.filter((e) => e.type === 'custom_profile_fields').length, 1);
  t.true(events[0]!.fields.some((f: any) => f.id === id));
  await verifyAction(t, s, member, () => s.client.as(admin).patch(`/realm/profile_fields/${id}`, { form: { hint: 'Which team', required: 'true' } }));
  const f = (await fields()).find((x) => x.id === id);
  t.like(f, { hint: 'Which team', required: true });

  const other = await field({ name: label('Office'), field_type: '1' });
  const order = (await fields()).map((x) => x.id).reverse();
  await verifyAction(t, s, member, () => s.client.as(admin).patch('/realm/profile_fields', { form: { order: json(order) } }));
  t.deepEqual((await fields()).map((x) => x.id), order);
  expectError(t, await s.client.as(admin).patch('/realm/profile_fields', { form: { order: json(order.slice(1)) } }), 'Invalid order mapping.');
  expectError(t, await s.client.as(member).patch('/realm/profile_fields', { form: { order: json(order) } }), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');

  // Deleting a field removes every user's value of it.
  t.is((await setOwn(member, [{ id, value: 'Blue' }])).status, 200);
  await verifyAction(t, s, admin, () => s.client.as(admin).delete(`/realm/profile_fields/${id}`));
  t.deepEqual(await profileOf(admin, member.id), {});
  expectError(t, await s.client.as(admin).delete(`/realm/profile_fields/${id}`), `Field id ${id} not found.`);
  expectError(t, await s.client.as(admin).patch(`/realm/profile_fields/${id}`, { form: { name: 'x' } }), `Field id ${id} not found.`);
  await s.client.as(admin).delete(`/realm/profile_fields/${other}`);
});

test.serial('users set values of every type; profile_data shows them (rendered text), events keep register consistent', async (t) => {
  const user = await addUser(s);
  const mentor = await addUser(s);
  const ids = {
    short: await field({ name: label('Nick'), field_type: '1' }),
    long: await field({ name: label('Bio'), field_type: '2' }),
    select: await field({ name: label('Editor'), field_type: '3', field_data: json(OPTIONS) }),
    date: await field({ name: label('Birthday'), field_type: '4' }),
    url: await field({ name: label('Site'), field_type: '5' }),
    user: await field({ name: label('Mentor'), field_type: '6' }),
    pronouns: await field({ name: label('Pronouns'), field_type: '8' }),
  };
  const data = [
    { id: ids.short, value: 'Ace' },
    { id: ids.long, value: 'I like **bold** text' },
    { id: ids.select, value: '1' },
    { id: ids.date, value: '1990-02-28' },
    { id: ids.url, value: 'https://example.com/me' },
    { id: ids.user, value: [mentor.id] },
    { id: ids.pronouns, value: 'they/them' },
  ];
  const events = await verifyAction(t, s, admin, () => setOwn(user, data));
  const updates = events.filter((e) => e.type === 'realm_user' && e.person.custom_profile_field);
  t.is(updates.length, data.length);
  const profile = await profileOf(admin, user.id);
  t.deepEqual(profile[ids.short], { value: 'Ace', rendered_value: '<p>Ace</p>' });
  t.deepEqual(profile[ids.long], { value: 'I like **bold** text', rendered_value: '<p>I like <strong>bold</strong> text</p>' });
  t.deepEqual(profile[ids.select], { value: '1' });
  t.deepEqual(profile[ids.date], { value: '1990-02-28' });
  t.deepEqual(profile[ids.user], { value: `[${mentor.id}]` });
  // Without include_custom_profile_fields, GET /users leaves profile_data out (as the reference does).
  const plain = await s.client.as(admin).get(`/users/${user.id}`);
  t.false('profile_data' in plain.json.user);
  const listed = await s.client.as(admin).get('/users', { query: { include_custom_profile_fields: 'true' } });
  t.deepEqual(listed.json.members.find((m: any) => m.user_id === user.id).profile_data, profile);
  t.deepEqual((await s.client.as(user).get('/users/me')).json.profile_data, profile);

  // Setting the same value again sends nothing; removing sends value null.
  const same = await verifyAction(t, s, admin, () => setOwn(user, [{ id: ids.short, value: 'Ace' }]));
  t.deepEqual(same.filter((e) => e.type === 'realm_user'), []);
  const removed = await verifyAction(t, s, admin, () => s.client.as(user).delete('/users/me/profile_data', { form: { data: json([ids.short]) } }));
  t.deepEqual(removed.find((e) => e.type === 'realm_user')!.person, { user_id: user.id, custom_profile_field: { id: ids.short, value: null } });
  t.false(String(ids.short) in (await profileOf(admin, user.id)));

  // Removing a choice of a list of options drops the values that chose it.
  await s.client.as(admin).patch(`/realm/profile_fields/${ids.select}`, { form: { field_data: json({ '0': OPTIONS['0'] }) } });
  t.false(String(ids.select) in (await profileOf(admin, user.id)));
  for (const id of Object.values(ids)) await s.client.as(admin).delete(`/realm/profile_fields/${id}`);
});

test.serial('values are checked by type with the reference\'s messages', async (t) => {
  const user = await addUser(s);
  const bot = await addUser(s, { isBot: true });
  const gone = await addUser(s);
  await s.client.as(admin).delete(`/users/${gone.id}`);
  const nick = label('Nick');
  const ids = {
    short: await field({ name: nick, field_type: '1' }),
    select: await field({ name: label('Editor'), field_type: '3', field_data: json(OPTIONS) }),
    date: await field({ name: label('Day'), field_type: '4' }),
    url: await field({ name: label('Site'), field_type: '5' }),
    user: await field({ name: label('Mentor'), field_type: '6' }),
  };
  const cases: [unknown, string | RegExp][] = [
    [{ id: ids.short, value: 'x'.repeat(51) }, `${nick} is too long (limit: 50 characters)`],
    [{ id: ids.short, value: [1] }, `${nick} is not a string`],
    [{ id: ids.date, value: '1990-02-30' }, /is not a date$/],
    [{ id: ids.url, value: 'not a url' }, /is not a URL$/],
    [{ id: ids.select, value: '7' }, /^'7' is not a valid choice for '/],
    [{ id: ids.user, value: 'x' }, 'User IDs is not a list'],
    [{ id: ids.user, value: [999_999] }, 'Invalid user ID: 999999'],
    [{ id: ids.user, value: [bot.id] }, `User with ID ${bot.id} is a bot`],
    [{ id: ids.user, value: [gone.id] }, `User with ID ${gone.id} is deactivated`],
    [{ id: 999_999, value: 'x' }, 'Field id 999999 not found.'],
  ];
  for (const [entry, msg] of cases) expectError(t, await setOwn(user, [entry]), msg);
  expectError(t, await setOwn(bot, [{ id: ids.short, value: 'x' }]), 'This endpoint does not accept bot requests.');
  for (const id of Object.values(ids)) await s.client.as(admin).delete(`/realm/profile_fields/${id}`);
});

test.serial('fields not editable by users: only administrators set them, through PATCH /users/{id}', async (t) => {
  const user = await addUser(s);
  const id = await field({ name: label('Employee ID'), field_type: '1', editable_by_user: 'false' });
  const refused = 'You are not allowed to change this field. Contact an administrator to update it.';
  expectError(t, await setOwn(user, [{ id, value: 'E1' }]), refused);
  const events = await verifyAction(t, s, user, () =>
    s.client.as(admin).patch(`/users/${user.id}`, { form: { profile_data: json([{ id, value: 'E42' }]) } }),
  );
  t.deepEqual(events.find((e) => e.type === 'realm_user')!.person, {
    user_id: user.id,
    custom_profile_field: { id, value: 'E42', rendered_value: '<p>E42</p>' },
  });
  expectError(t, await s.client.as(user).delete('/users/me/profile_data', { form: { data: json([id]) } }), refused);
  // An empty value through PATCH /users/{id} removes it.
  t.is((await s.client.as(admin).patch(`/users/${user.id}`, { form: { profile_data: json([{ id, value: '' }]) } })).status, 200);
  t.deepEqual(await profileOf(admin, user.id), {});
  // Members may not use PATCH /users/{id}.
  const member = await addUser(s);
  expectError(
    t,
    await s.client.as(member).patch(`/users/${user.id}`, { form: { profile_data: json([{ id, value: 'x' }]) } }),
    'Must be an organization administrator',
    'UNAUTHORIZED_PRINCIPAL',
  );
  await s.client.as(admin).delete(`/realm/profile_fields/${id}`);
});

test.serial('register: custom_profile_fields with custom_profile_field_types, the reference\'s type catalogue', async (t) => {
  const member = await addUser(s);
  const r = await s.client.as(member).post('/register', { form: { fetch_event_types: json(['custom_profile_fields']) } });
  t.deepEqual(r.json.custom_profile_fields, await fields());
  // Sorted by display name, as the reference lists them.
  t.deepEqual(Object.keys(r.json.custom_profile_field_types), ['DATE', 'EXTERNAL_ACCOUNT', 'URL', 'SELECT', 'PRONOUNS', 'LONG_TEXT', 'SHORT_TEXT', 'USER']);
  t.deepEqual(r.json.custom_profile_field_types.URL, { id: 5, name: 'Link' });
  t.deepEqual(r.json.custom_profile_field_types.SELECT, { id: 3, name: 'List of options' });
  t.deepEqual(r.json.custom_profile_field_types.USER, { id: 6, name: 'Users' });
});

test('the field list and values survive a restart of the realm (loaded from the database)', async (t) => {
  const user = await addUser(s);
  const id = await field({ name: label('Desk'), field_type: '1' });
  await setOwn(user, [{ id, value: 'B12' }]);
  const realm = await s.server.services.realms.forHost(undefined);
  await realm.dispatch('realm.reload');
  t.deepEqual((await profileOf(admin, user.id))[id], { value: 'B12', rendered_value: '<p>B12</p>' });
  t.true((await fields()).some((f) => f.id === id));
  await s.client.as(admin).delete(`/realm/profile_fields/${id}`);
});
