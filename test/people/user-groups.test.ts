// User groups over HTTP: system groups, create, update, members, subgroups, deactivate, and user_group events.
import test from 'ava';
import { addUser, type TestUser } from '../helpers/users.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ids, watchEvents } from './helpers.js';

let s: TestServer;
let ownerId: number;
test.before(async () => {
  s = await startTestServer();
  ownerId = (await s.client.as(s.owner).get('/users/me')).json.user_id;
});
test.after.always(() => s.close());

const state = async () => (await s.server.services.realms.forHost(undefined)).state;
const sys = async (name: string) => (await state()).systemGroup(name).id;

async function createGroup(as: TestUser | typeof s.owner, name: string, extra: Record<string, string> = {}) {
  return s.client.as(as).post('/user_groups/create', { form: { name, description: `${name} team`, members: '[]', ...extra } });
}

test.serial('the system groups behind every role, with their members and nesting', async (t) => {
  const users: Record<number, TestUser> = {};
  for (const role of [200, 300, 400, 600] as const) users[role] = await addUser(s, { role });
  const res = await s.client.as(users[400]!).get('/user_groups');
  t.is(res.status, 200);
  const byName = new Map((res.json.user_groups as any[]).map((g) => [g.name, g]));
  for (const name of ['role:owners', 'role:administrators', 'role:moderators', 'role:fullmembers', 'role:members', 'role:everyone', 'role:nobody']) {
    t.true(byName.has(name), name);
    t.is(byName.get(name).is_system_group, true);
  }
  t.deepEqual(byName.get('role:owners').members, [ownerId]);
  t.deepEqual(byName.get('role:administrators').members, [users[200]!.id]);
  t.deepEqual(byName.get('role:moderators').members, [users[300]!.id]);
  t.deepEqual(byName.get('role:fullmembers').members, [users[400]!.id]);
  t.deepEqual(byName.get('role:everyone').members, [users[600]!.id]);
  t.deepEqual(byName.get('role:administrators').direct_subgroup_ids, [byName.get('role:owners').id]);
  const g = byName.get('role:members');
  t.deepEqual(Object.keys(g).sort(), [
    'can_add_members_group', 'can_join_group', 'can_leave_group', 'can_manage_group', 'can_mention_group',
    'can_remove_members_group', 'creator_id', 'date_created', 'deactivated', 'description', 'direct_subgroup_ids', 'id',
    'is_system_group', 'members', 'name',
  ]);
  t.is(g.can_manage_group, byName.get('role:nobody').id);

  // Recursive members: everyone includes the owner through the subgroup chain.
  const everyone = await s.client.as(users[400]!).get(`/user_groups/${byName.get('role:everyone').id}/members`);
  t.true(everyone.json.members.includes(ownerId));
  t.true(everyone.json.members.includes(users[600]!.id));
  const direct = await s.client.as(users[400]!).get(`/user_groups/${byName.get('role:everyone').id}/members`, {
    query: { direct_member_only: 'true' },
  });
  t.deepEqual(direct.json.members, [users[600]!.id]);
  const isMember = await s.client.as(users[400]!).get(`/user_groups/${byName.get('role:members').id}/members/${ownerId}`);
  t.is(isMember.json.is_user_group_member, true);

  // Guests and bots may not list groups.
  const guest = await s.client.as(users[600]!).get('/user_groups');
  t.is(guest.json.msg, 'Not allowed for guest users');
  const bot = await addUser(s, { isBot: true });
  t.is((await s.client.as(bot).get('/user_groups')).json.msg, 'This endpoint does not accept bot requests.');
  // System groups cannot be changed by anyone.
  const sysEdit = await s.client.as(s.owner).post(`/user_groups/${byName.get('role:members').id}/members`, { form: { add: `[${ownerId}]` } });
  t.is(sysEdit.json.msg, 'Insufficient permission');
});

test.serial('POST /user_groups/create: defaults, validation, and the add event', async (t) => {
  const member = await addUser(s, { role: 400 });
  const other = await addUser(s, { role: 400 });
  const log = watchEvents(s);
  const res = await s.client.as(member).post('/user_groups/create', {
    form: { name: 'backend', description: 'Backend team', members: JSON.stringify([member.id, other.id]) },
  });
  t.is(res.status, 200, res.text);
  const id = res.json.group_id as number;
  const add = log.of('user_group', 'add')[0]!;
  const group = add.event.group as any;
  t.is(group.id, id);
  t.is(group.name, 'backend');
  t.is(group.description, 'Backend team');
  t.deepEqual(group.members, [member.id, other.id].sort((a, b) => a - b));
  t.is(group.creator_id, member.id);
  t.is(group.is_system_group, false);
  t.is(group.deactivated, false);
  t.true(Number.isInteger(group.date_created));
  t.deepEqual(group.can_manage_group, { direct_members: [member.id], direct_subgroups: [] });
  t.deepEqual(group.can_add_members_group, { direct_members: [member.id], direct_subgroups: [] });
  t.is(group.can_join_group, await sys('role:nobody'));
  t.is(group.can_leave_group, await sys('role:everyone'));
  t.is(group.can_mention_group, await sys('role:everyone'));
  t.is(group.can_remove_members_group, await sys('role:nobody'));
  t.true(ids(add.users).includes(ownerId));
  log.stop();

  t.is((await createGroup(member, 'backend')).json.msg, "User group 'backend' already exists.");
  t.is((await createGroup(member, 'role:hackers')).json.msg, "User group name cannot start with 'role:'.");
  t.is((await createGroup(member, '  ')).json.msg, 'User group name cannot be empty.');
  t.is((await createGroup(member, 'x'.repeat(101))).json.msg, 'User group name cannot exceed 100 characters.');
  t.is((await createGroup(member, 'ghosts', { members: '[99999]' })).json.msg, 'Invalid user ID: 99999');
  t.is((await createGroup(member, 'sub', { subgroups: '[99999]' })).json.msg, 'Invalid user group');
  // An anonymous group of one subgroup is stored as that group's ID; role:everyone cannot manage.
  const admins = await sys('role:administrators');
  const withSetting = await createGroup(member, 'frontend', {
    can_mention_group: JSON.stringify({ direct_members: [], direct_subgroups: [admins] }),
  });
  t.is(withSetting.status, 200, withSetting.text);
  const fe = (await state()).groupsById.get(withSetting.json.group_id)!;
  t.is(fe.groupSettings.can_mention_group, admins);
  const everyoneManages = await createGroup(member, 'open', { can_manage_group: String(await sys('role:everyone')) });
  t.is(everyoneManages.json.msg, "'can_manage_group' setting cannot be set to 'role:everyone' group.");

  // Guests may not use group endpoints at all (Zulip's require_member_or_admin); members may create by default.
  const guest = await addUser(s, { role: 600 });
  t.is((await createGroup(guest, 'guests-only')).json.msg, 'Not allowed for guest users');
});

test.serial('PATCH /user_groups/{id}: name, description, settings with old/new; managers only', async (t) => {
  const creator = await addUser(s, { role: 400 });
  const outsider = await addUser(s, { role: 400 });
  const moderator = await addUser(s, { role: 300 });
  const id = (await createGroup(creator, 'design')).json.group_id as number;
  const log = watchEvents(s);
  const res = await s.client.as(creator).patch(`/user_groups/${id}`, { form: { name: 'design-team', description: 'Pixels' } });
  t.is(res.status, 200, res.text);
  t.deepEqual(log.of('user_group', 'update')[0]!.event, {
    type: 'user_group', op: 'update', group_id: id, data: { name: 'design-team', description: 'Pixels' },
  });
  const st = await state();
  t.is(st.groupsByName.get('design-team')!.id, id);
  t.false(st.groupsByName.has('design'));

  const mods = await sys('role:moderators');
  const setting = await s.client.as(creator).patch(`/user_groups/${id}`, {
    form: { can_join_group: JSON.stringify({ new: mods, old: await sys('role:nobody') }) },
  });
  t.is(setting.status, 200, setting.text);
  t.deepEqual(log.of('user_group', 'update')[1]!.event.data, { can_join_group: mods });
  const stale = await s.client.as(creator).patch(`/user_groups/${id}`, {
    form: { can_join_group: JSON.stringify({ new: mods, old: await sys('role:nobody') }) },
  });
  t.is(stale.json.msg, "'old' value for can_join_group does not match expected value");
  log.stop();

  t.is((await s.client.as(outsider).patch(`/user_groups/${id}`, { form: { name: 'mine' } })).json.msg, 'Insufficient permission');
  // Only owners hold can_manage_all_groups by default: a moderator cannot manage someone else's group; the owner can.
  t.is((await s.client.as(moderator).patch(`/user_groups/${id}`, { form: { description: 'm' } })).json.msg, 'Insufficient permission');
  t.is((await s.client.as(s.owner).patch(`/user_groups/${id}`, { form: { description: 'by owner' } })).status, 200);
  t.is((await s.client.as(creator).patch(`/user_groups/${id}`)).json.msg, 'No new data supplied');
  t.is((await s.client.as(creator).patch('/user_groups/99999', { form: { name: 'x' } })).json.msg, 'Invalid user group');
});

test.serial('members: add and remove with events; join and leave by the group settings', async (t) => {
  const creator = await addUser(s, { role: 400 });
  const a = await addUser(s, { role: 400 });
  const b = await addUser(s, { role: 400 });
  const id = (await createGroup(creator, 'ops')).json.group_id as number;
  const log = watchEvents(s);
  const add = await s.client.as(creator).post(`/user_groups/${id}/members`, { form: { add: JSON.stringify([a.id, b.id]) } });
  t.is(add.status, 200, add.text);
  t.deepEqual(log.of('user_group', 'add_members')[0]!.event, { type: 'user_group', op: 'add_members', group_id: id, user_ids: [a.id, b.id].sort((x, y) => x - y) });
  const rm = await s.client.as(creator).post(`/user_groups/${id}/members`, { form: { delete: JSON.stringify([b.id]) } });
  t.is(rm.status, 200);
  t.deepEqual(log.of('user_group', 'remove_members')[0]!.event.user_ids, [b.id]);
  log.stop();
  const members = await s.client.as(a).get(`/user_groups/${id}/members`);
  t.deepEqual(members.json.members, [a.id]);

  t.is((await s.client.as(creator).post(`/user_groups/${id}/members`, { form: { add: `[${a.id}]` } })).json.msg, `User ${a.id} is already a member of this group`);
  t.is((await s.client.as(creator).post(`/user_groups/${id}/members`, { form: { delete: `[${b.id}]` } })).json.msg, `There is no member '${b.id}' in this user group`);
  t.is((await s.client.as(creator).post(`/user_groups/${id}/members`, { form: { add: '[99999]' } })).json.msg, 'Invalid user ID: 99999');
  t.regex((await s.client.as(creator).post(`/user_groups/${id}/members`)).json.msg, /^Nothing to do/);

  // b cannot join (can_join_group is role:nobody) until the group lets members join; a may leave (role:everyone).
  t.is((await s.client.as(b).post(`/user_groups/${id}/members`, { form: { add: `[${b.id}]` } })).json.msg, 'Insufficient permission');
  await s.client.as(creator).patch(`/user_groups/${id}`, { form: { can_join_group: JSON.stringify({ new: await sys('role:members') }) } });
  t.is((await s.client.as(b).post(`/user_groups/${id}/members`, { form: { add: `[${b.id}]` } })).status, 200);
  t.is((await s.client.as(a).post(`/user_groups/${id}/members`, { form: { delete: `[${a.id}]` } })).status, 200);
  // But b cannot remove someone else.
  t.is((await s.client.as(b).post(`/user_groups/${id}/members`, { form: { delete: `[${creator.id}]` } })).json.msg, 'Insufficient permission');
  // A deactivated user leaves the members list.
  await s.client.as(s.owner).delete(`/users/${b.id}`);
  t.deepEqual((await s.client.as(creator).get(`/user_groups/${id}/members`)).json.members, []);
});

test.serial('subgroups: add and remove with events; no cycles', async (t) => {
  const creator = await addUser(s, { role: 400 });
  const inner = await addUser(s, { role: 400 });
  const parent = (await createGroup(creator, 'parent')).json.group_id as number;
  const child = (await createGroup(creator, 'child', { members: `[${inner.id}]` })).json.group_id as number;
  const log = watchEvents(s);
  t.is((await s.client.as(creator).post(`/user_groups/${parent}/subgroups`, { form: { add: `[${child}]` } })).status, 200);
  t.deepEqual(log.of('user_group', 'add_subgroups')[0]!.event, { type: 'user_group', op: 'add_subgroups', group_id: parent, direct_subgroup_ids: [child] });
  t.true((await s.client.as(creator).get(`/user_groups/${parent}/members`)).json.members.includes(inner.id));
  t.deepEqual((await s.client.as(creator).get(`/user_groups/${parent}/subgroups`)).json.subgroups, [child]);
  t.is((await s.client.as(creator).post(`/user_groups/${parent}/subgroups`, { form: { add: `[${child}]` } })).json.msg, `User group ${child} is already a subgroup of this group.`);
  t.is((await s.client.as(creator).post(`/user_groups/${child}/subgroups`, { form: { add: `[${parent}]` } })).json.msg, `User group ${parent} is already a supergroup of this group.`);
  t.is((await s.client.as(creator).post(`/user_groups/${parent}/subgroups`, { form: { delete: `[${child}]` } })).status, 200);
  t.deepEqual(log.of('user_group', 'remove_subgroups')[0]!.event.direct_subgroup_ids, [child]);
  t.is((await s.client.as(creator).post(`/user_groups/${parent}/subgroups`, { form: { delete: `[${child}]` } })).json.msg, `User group ${child} is not a subgroup of this group.`);
  // add_subgroups through the members endpoint too.
  t.is((await s.client.as(creator).post(`/user_groups/${parent}/members`, { form: { add_subgroups: `[${child}]` } })).status, 200);
  log.stop();
});

test.serial('deactivate: update event (remove for old clients), refused while in use, reactivated by PATCH', async (t) => {
  const creator = await addUser(s, { role: 400 });
  const id = (await createGroup(creator, 'temp')).json.group_id as number;
  const used = (await createGroup(creator, 'used')).json.group_id as number;
  await s.client.as(creator).post(`/user_groups/${id}/subgroups`, { form: { add: `[${used}]` } });
  const inUse = await s.client.as(creator).post(`/user_groups/${used}/deactivate`);
  t.is(inUse.json.code, 'CANNOT_DEACTIVATE_GROUP_IN_USE');
  t.is(inUse.json.msg, 'Cannot deactivate user group in use.');
  t.deepEqual(inUse.json.objections, [{ type: 'user_group', group_id: id, settings: ['direct_subgroup_ids'] }]);

  const log = watchEvents(s);
  const res = await s.client.as(creator).post(`/user_groups/${id}/deactivate`);
  t.is(res.status, 200, res.text);
  const ev = log.of('user_group', 'update')[0]!;
  t.deepEqual(ev.event, { type: 'user_group', op: 'update', group_id: id, data: { deactivated: true } });
  t.deepEqual(ev.legacy, { include_deactivated_groups: [{ type: 'user_group', op: 'remove', group_id: id }] });
  const listed = await s.client.as(creator).get('/user_groups');
  t.false(listed.json.user_groups.some((g: any) => g.id === id));
  const all = await s.client.as(creator).get('/user_groups', { query: { include_deactivated_groups: 'true' } });
  t.is(all.json.user_groups.find((g: any) => g.id === id).deactivated, true);
  t.is((await s.client.as(creator).post(`/user_groups/${id}/deactivate`)).json.msg, 'User group is already deactivated.');
  const back = await s.client.as(creator).patch(`/user_groups/${id}`, { form: { deactivated: 'false' } });
  t.is(back.status, 200, back.text);
  t.deepEqual(log.of('user_group', 'update')[1]!.event.data, { deactivated: false });
  log.stop();
  // The realm's own permission groups are in use.
  const realmUse = await s.client.as(s.owner).post(`/user_groups/${await sys('role:members')}/deactivate`);
  t.is(realmUse.json.msg, 'Insufficient permission');
});

test.serial('group-setting values are resolved the same way for permissions: an anonymous group grants to its members', async (t) => {
  const creator = await addUser(s, { role: 400 });
  const helper = await addUser(s, { role: 400 });
  const id = (await createGroup(creator, 'anon')).json.group_id as number;
  t.is((await s.client.as(helper).patch(`/user_groups/${id}`, { form: { description: 'x' } })).json.msg, 'Insufficient permission');
  const grant = await s.client.as(creator).patch(`/user_groups/${id}`, {
    form: { can_manage_group: JSON.stringify({ new: { direct_members: [creator.id, helper.id], direct_subgroups: [] } }) },
  });
  t.is(grant.status, 200, grant.text);
  t.is((await s.client.as(helper).patch(`/user_groups/${id}`, { form: { description: 'by helper' } })).status, 200);
  const st = await state();
  t.true(st.userHasGroupSetting(helper.id, st.groupsById.get(id)!.groupSettings.can_manage_group!));
});
