// Channel folders: create, list, update (name, description, archive), reorder; their events and errors.
import test from 'ava';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createChannel, makeCast, ofType, recordEvents, setRealmSettings, sorted, uniqueName, type Cast } from './helpers.js';

let s: TestServer;
let cast: Cast;
let everyone: number[];

test.before(async () => {
  s = await startTestServer();
  cast = await makeCast(s);
  everyone = sorted(Object.values(cast).map((u) => u.id));
});
test.after.always(() => s?.close());

const createFolder = (as: { email: string; apiKey: string }, form: Record<string, string>) =>
  s.client.as(as).post('/channel_folders/create', { form });
const folders = async (as: { email: string; apiKey: string } | null, query: Record<string, string> = {}) =>
  (await (as ? s.client.as(as) : s.client).get('/channel_folders', { query })).json;

test.serial('administrators create folders; the record and the add event', async (t) => {
  const events = recordEvents(s);
  const before = Math.floor(Date.now() / 1000);
  const r = await createFolder(cast.admin, { name: ' Frontend ', description: 'Channels for **frontend**' });
  t.is(r.status, 200);
  const id = r.json.channel_folder_id as number;
  t.deepEqual(Object.keys(r.json).sort(), ['channel_folder_id', 'msg', 'result']);
  const [folder] = (await folders(cast.member)).channel_folders.filter((f: any) => f.id === id);
  t.is(folder.name, 'Frontend');
  t.is(folder.description, 'Channels for **frontend**');
  t.is(folder.rendered_description, '<p>Channels for <strong>frontend</strong></p>');
  t.is(folder.creator_id, cast.admin.id);
  t.is(folder.is_archived, false);
  t.is(typeof folder.order, 'number');
  t.true(folder.date_created >= before - 1);
  const [add] = ofType(events.take(), 'channel_folder', 'add');
  events.stop();
  t.deepEqual(add!.event, { type: 'channel_folder', op: 'add', channel_folder: folder });
  t.deepEqual(add!.users, everyone);
});

test('creating: administrators only; names unique (any case), non-empty, at most 60 characters', async (t) => {
  t.deepEqual((await createFolder(cast.member, { name: uniqueName('f') })).json, {
    result: 'error',
    msg: 'Must be an organization administrator',
    code: 'UNAUTHORIZED_PRINCIPAL',
  });
  const name = uniqueName('Backend');
  t.is((await createFolder(cast.owner, { name })).status, 200);
  t.deepEqual((await createFolder(cast.owner, { name: name.toLowerCase() })).json, { result: 'error', msg: 'Channel folder name already in use', code: 'BAD_REQUEST' });
  t.is((await createFolder(cast.owner, { name: '  ' })).json.msg, "Channel folder name can't be empty.");
  t.is((await createFolder(cast.owner, { name: 'n'.repeat(61) })).json.msg, 'name is too long (limit: 60 characters)');
  t.is((await createFolder(cast.owner, { name: uniqueName(), description: 'd'.repeat(1025) })).json.msg, 'description is too long (limit: 1024 characters)');
  t.is((await createFolder(cast.owner, {})).json.code, 'REQUEST_VARIABLE_MISSING');
});

test.serial('updating: name, description, archive; update events carry only what changed', async (t) => {
  const id = (await createFolder(cast.admin, { name: uniqueName('Ops') })).json.channel_folder_id as number;
  const update = (as: { email: string; apiKey: string }, form: Record<string, string>) => s.client.as(as).patch(`/channel_folders/${id}`, { form });
  const events = recordEvents(s);
  t.deepEqual((await update(cast.admin, { name: 'Operations', description: '_ops_' })).json, { result: 'success', msg: '' });
  const [ev] = ofType(events.take(), 'channel_folder', 'update');
  t.deepEqual(ev!.event, {
    type: 'channel_folder',
    op: 'update',
    channel_folder_id: id,
    data: { name: 'Operations', description: '_ops_', rendered_description: '<p>_ops_</p>' },
  });
  t.is((await update(cast.member, { name: 'x' })).json.code, 'UNAUTHORIZED_PRINCIPAL');
  t.is((await update(cast.admin, {})).json.msg, 'Client did not pass any new values.');
  t.is((await s.client.as(cast.admin).patch('/channel_folders/999999', { form: { name: 'x' } })).json.msg, 'Invalid channel folder ID');

  // A folder with channels cannot be archived until they leave it.
  const ch = await createChannel(s, cast.member, uniqueName(), [], { folder_id: String(id) });
  t.deepEqual((await update(cast.admin, { is_archived: 'true' })).json, {
    result: 'error',
    msg: 'You need to remove all the channels from this folder to archive it.',
    code: 'BAD_REQUEST',
  });
  await s.client.as(cast.member).patch(`/streams/${ch}`, { form: { folder_id: 'null' } });
  t.is((await update(cast.admin, { is_archived: 'true' })).status, 200);
  t.deepEqual(ofType(events.take(), 'channel_folder', 'update').at(-1)!.event.data, { is_archived: true });
  events.stop();
  t.false((await folders(cast.member)).channel_folders.some((f: any) => f.id === id));
  t.true((await folders(cast.member, { include_archived: 'true' })).channel_folders.find((f: any) => f.id === id).is_archived);
  t.is((await update(cast.admin, { is_archived: 'false' })).status, 200);
});

test.serial('reordering: the full list of folder IDs; folders are listed by order', async (t) => {
  const all = (await folders(cast.admin, { include_archived: 'true' })).channel_folders.map((f: any) => f.id) as number[];
  const reversed = [...all].reverse();
  const events = recordEvents(s);
  t.deepEqual((await s.client.as(cast.admin).patch('/channel_folders', { form: { order: JSON.stringify(reversed) } })).json, { result: 'success', msg: '' });
  const listed = (await folders(cast.member, { include_archived: 'true' })).channel_folders;
  t.deepEqual(listed.map((f: any) => f.id), reversed);
  t.deepEqual(listed.map((f: any) => f.order), reversed.map((_, i) => i));
  const [ev] = ofType(events.take(), 'channel_folder', 'reorder');
  events.stop();
  t.deepEqual(ev!.event, { type: 'channel_folder', op: 'reorder', order: reversed });
  const partial = await s.client.as(cast.admin).patch('/channel_folders', { form: { order: JSON.stringify(reversed.slice(1)) } });
  t.deepEqual(partial.json, { result: 'error', msg: 'Order must list the IDs of all the channel folders of the organization.', code: 'BAD_REQUEST' });
  t.is((await s.client.as(cast.admin).patch('/channel_folders', { form: { order: JSON.stringify([...reversed, reversed[0]]) } })).json.code, 'BAD_REQUEST');
  t.is((await s.client.as(cast.member).patch('/channel_folders', { form: { order: JSON.stringify(reversed) } })).json.code, 'UNAUTHORIZED_PRINCIPAL');
});

test.serial('spectators see only folders holding a web-public channel', async (t) => {
  const webFolder = (await createFolder(cast.admin, { name: uniqueName('Public web') })).json.channel_folder_id;
  (await createFolder(cast.admin, { name: uniqueName('Internal') })).json.channel_folder_id;
  t.is((await s.client.get('/channel_folders')).status, 401);
  await setRealmSettings(s, { enable_spectator_access: true });
  await createChannel(s, cast.owner, uniqueName('web'), [], { is_web_public: 'true', folder_id: String(webFolder) });
  t.deepEqual((await folders(null)).channel_folders.map((f: any) => f.id), [webFolder]);
  await setRealmSettings(s, { enable_spectator_access: false });
});
