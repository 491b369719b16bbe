// Checks on channel names, descriptions and settings given by clients.
import { errors } from '../../errors.js';
import { int, oneOf, str, type ParamType } from '../../params.js';
import type { RealmState } from '../state.js';
import { LIMITS } from '../../limits.js';
import type { Channel } from '../../model/channels.js';

const UNPRINTABLE = /[\p{Cc}\p{Cs}\p{Co}\p{Cn}]/u;

/** A channel name: trimmed, non-empty, at most 60 characters, printable. */
export function checkChannelName(raw: string): string {
  const name = raw.trim();
  if (name === '') throw errors.channelNameEmpty();
  const chars = [...name];
  if (chars.length > LIMITS.max_stream_name_length) throw errors.channelNameTooLong(LIMITS.max_stream_name_length);
  const bad = chars.findIndex((c) => UNPRINTABLE.test(c));
  if (bad >= 0) throw errors.channelNameInvalidCharacter(bad + 1);
  return name;
}

/** A name no other channel of the realm has (case-insensitively). */
export function checkNameAvailable(state: RealmState, name: string, self?: Channel): void {
  const other = state.channels.channelByName(name);
  if (other && other.id !== self?.id) throw errors.channelNameInUse();
}

export function checkDescription(description: string): string {
  if ([...description].length > LIMITS.max_stream_description_length) {
    throw errors.invalidParam(`description is too long (limit: ${LIMITS.max_stream_description_length} characters)`);
  }
  if (description.includes('\u0000')) throw errors.invalidParam('description contains NULL (0x00) characters.');
  return description;
}

/** message_retention_days as sent: a number of days, "realm_default" or "unlimited" (JSON-encoded or bare). */
export function retentionParam(): ParamType<number | string> {
  const base = oneOf(int(), str());
  const jsonString = (raw: string): string | undefined => {
    try {
      const v: unknown = JSON.parse(raw);
      return typeof v === 'string' ? v : undefined;
    } catch {
      return undefined;
    }
  };
  return {
    fromRaw: (raw, name) => {
      const decoded = jsonString(raw.trim());
      return decoded !== undefined ? base.fromJson(decoded, name) : base.fromRaw(raw, name);
    },
    fromJson: base.fromJson,
  };
}

/** The stored value: null inherits the realm's setting, -1 keeps forever. */
export function parseRetention(value: number | string): number | null {
  if (value === 'realm_default') return null;
  if (value === 'unlimited') return -1;
  if (typeof value === 'string' || value <= 0) throw errors.badParamValue('message_retention_days', value);
  return value;
}
