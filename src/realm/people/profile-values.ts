// Users' profile field values as the API shows them (profile_data, realm_user events).
import type { ProfileValue } from '../../model/people.js';

/** A user's value as in profile_data and in realm_user events (rendered_value only for text fields). */
export function formatValue(v: ProfileValue): { value: string; rendered_value?: string } {
  return v.renderedValue === null ? { value: v.value } : { value: v.value, rendered_value: v.renderedValue };
}

/** A user's profile_data from their values by field ID. */
export function profileDataOf(values: Map<number, ProfileValue>): Record<string, { value: string; rendered_value?: string }> {
  const out: Record<string, { value: string; rendered_value?: string }> = {};
  for (const [id, v] of values) out[String(id)] = formatValue(v);
  return out;
}
