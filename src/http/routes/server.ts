// GET /server_settings: what a client needs before logging in.
import { endpoint, type RequestContext } from '../endpoint.js';
import { FEATURE_LEVEL, SERVICE_MERGE_BASE, SERVICE_VERSION } from '../../version.js';
import { realmUrl } from '../urls.js';
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
      service_feature_level: FEATURE_LEVEL,
      service_version: SERVICE_VERSION,
      service_merge_base: SERVICE_MERGE_BASE,
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
