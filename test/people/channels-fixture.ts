// Creates channels for the people tests: through POST /channels/create when it is served, else the realm command.
import type { Credentials } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';

export async function makeChannel(
  s: TestServer,
  as: Credentials & { id: number },
  name: string,
  opts: { inviteOnly?: boolean; isDefault?: boolean } = {},
): Promise<number> {
  const res = await s.client.as(as).post('/channels/create', {
    form: {
      name,
      subscribers: JSON.stringify([as.id]),
      invite_only: String(opts.inviteOnly ?? false),
      is_default_stream: String(opts.isDefault ?? false),
    },
  });
  if (res.status === 200 && typeof res.json.id === 'number') return res.json.id;
  const realm = await s.server.services.realms.forHost(undefined);
  if (res.status !== 404 && res.status !== 200) throw new Error(`channel ${name}: ${res.text}`);
  await realm.dispatch('channels.create', {
    actorId: as.id,
    name,
    description: '',
    subscriberIds: [as.id],
    announce: false,
    settings: { inviteOnly: opts.inviteOnly ?? false, isWebPublic: false, isDefault: opts.isDefault ?? false, groupSettings: {} },
    server: { realmUrl: `http://127.0.0.1:${s.port}`, webPublicStreamsEnabled: false },
  });
  return realm.state.channels.byName.get(name.toLowerCase())!.id;
}
