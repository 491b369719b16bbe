// What the server says about its API level and build.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from './paths.js';

/** API feature level of the contract this server implements. */
export const FEATURE_LEVEL = 419;

/** The reference release whose API (FEATURE_LEVEL) this server speaks. */
const REFERENCE_RELEASE = '11.0';

const pkg = JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { version: string };
/** `<reference release>-palaver-<our version>`, e.g. `11.0-palaver-0.1.0`: clients read a major (and minor) version
 *  from the leading numbers of a version string (the mobile apps' ZulipVersion, `^(\d+)(?:\.(\d+))?`), so it
 *  starts with the release of the API spoken; the rest names this server and its own version. */
export const SERVICE_VERSION = `${REFERENCE_RELEASE}-palaver-${pkg.version}`;
/** Not a fork of any other release line: the merge base is the version itself. */
export const SERVICE_MERGE_BASE: string = SERVICE_VERSION;

/** The version fields of /server_settings and /register: the contract's `service_*`, and unless turned off
 *  (ZULIP_COMPAT_FIELDS=0) the same values under the reference's `zulip_*` names, which real clients read. */
export function versionFields(zulipAliases: boolean) {
  const fields = {
    service_feature_level: FEATURE_LEVEL,
    service_version: SERVICE_VERSION,
    service_merge_base: SERVICE_MERGE_BASE,
  };
  if (!zulipAliases) return fields;
  return { ...fields, zulip_feature_level: FEATURE_LEVEL, zulip_version: SERVICE_VERSION, zulip_merge_base: SERVICE_MERGE_BASE };
}
