// The rules for users' full names.
import { errors } from '../../errors.js';
import { realmSetting } from '../realm-settings.js';
import type { RealmState } from '../state.js';

/** full_name rules: trimmed, 1–100 characters, no control or markup-significant characters. */
export function checkFullName(raw: string, state?: RealmState, exceptUserId?: number): string {
  const name = raw.trim();
  if (name.length === 0) throw errors.badRequest('Name too short!');
  if ([...name].length > 100) throw errors.badRequest('Name too long!');
  if (/[\u0000-\u001f\u007f*`\\>"@]/.test(name)) throw errors.badRequest('Invalid characters in name!');
  // The organization's require_unique_names: no other user of the realm has the name, case aside.
  if (state && realmSetting(state, 'require_unique_names')) {
    const lower = name.toLowerCase();
    for (const u of state.usersById.values()) {
      if (u.id !== exceptUserId && u.fullName.toLowerCase() === lower) throw errors.badRequest('Unique names required in this organization.');
    }
  }
  return name;
}
