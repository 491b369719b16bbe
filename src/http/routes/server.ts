// GET /server_settings: what a client needs before logging in; the emoji data file register points clients to.
import { EMOJI_DATA_PATH, emojiByName, emojiCodes, emojiNames } from '../../markdown/emoji.js';
import { endpoint, RawReply, type RequestContext } from '../endpoint.js';
import { versionFields } from '../../version.js';
import { realmUrl } from '../../urls.js';
import { escapeHtml } from '../../markdown/escape.js';

const AUTH_METHODS = ['password', 'dev', 'email', 'ldap', 'remoteuser', 'github', 'azuread', 'gitlab', 'apple', 'google', 'saml', 'openid connect'];

export const serverSettings = endpoint({
  method: 'GET',
  path: '/server_settings',
  auth: 'none',
  params: {},
  handle(ctx: RequestContext) {
    const realm = ctx.realm.state.realm;
    const url = realmUrl(ctx.services.config, realm.stringId);
    return {
      authentication_methods: Object.fromEntries(AUTH_METHODS.map((m) => [m, m === 'password' || m === 'email'])),
      external_authentication_methods: [],
      ...versionFields(ctx.services.config.zulipCompatFields),
      push_notifications_enabled: false,
      is_incompatible: false,
      email_auth_enabled: true,
      require_email_format_usernames: true,
      realm_uri: url,
      realm_url: url,
      realm_name: realm.name,
      realm_icon: `${url}/static/images/logo/palaver-icon.png`,
      realm_description: realm.description === '' ? '' : `<p>${escapeHtml(realm.description)}</p>`,
      realm_web_public_access_enabled: false,
    };
  },
  response: {
    authentication_methods: { type: 'object', additionalProperties: { type: 'boolean' } },
    external_authentication_methods: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          display_name: { type: 'string' },
          display_icon: { type: ['string', 'null'] },
          login_url: { type: 'string' },
          signup_url: { type: 'string' },
        },
      },
    },
    service_feature_level: { type: 'integer' },
    service_version: { type: 'string' },
    service_merge_base: { type: 'string' },
    zulip_feature_level: { type: 'integer' },
    zulip_version: { type: 'string' },
    zulip_merge_base: { type: 'string' },
    push_notifications_enabled: { type: 'boolean' },
    is_incompatible: { type: 'boolean' },
    email_auth_enabled: { type: 'boolean' },
    require_email_format_usernames: { type: 'boolean' },
    realm_uri: { type: 'string' },
    realm_url: { type: 'string' },
    realm_name: { type: 'string' },
    realm_icon: { type: 'string' },
    realm_description: { type: 'string' },
    realm_web_public_access_enabled: { type: 'boolean' },
  },
});

/** The Unicode emoji this server accepts, as register's server_emoji_data_url describes: {code_to_names}. */
let emojiData: string | undefined;

export const emojiDataFile = endpoint({
  method: 'GET',
  path: EMOJI_DATA_PATH,
  root: true,
  auth: 'public',
  params: {},
  handle() {
    if (emojiData === undefined) {
      const codeToNames: Record<string, string[]> = {};
      for (const [code, name] of emojiCodes()) codeToNames[code] = [name];
      for (const name of emojiNames()) {
        const code = emojiByName(name)!;
        if (!codeToNames[code]!.includes(name)) codeToNames[code]!.push(name);
      }
      emojiData = JSON.stringify({ code_to_names: codeToNames });
    }
    return new RawReply({ status: 200, headers: { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=86400' }, body: emojiData });
  },
});
