// Register responses carry the realm's user list, the bulk of their bytes: its records are serialized once per
// user version (src/events/snapshot/realm-users.ts) and spliced into the response as they are.

/** A value already serialized as JSON. Serializers other than `serializeBody` get the parsed value back. */
export class RawJson {
  constructor(readonly json: string) {}
  toJSON(): unknown {
    return JSON.parse(this.json);
  }
}

/** A JSON array from serialized items. */
export function rawArray(items: string[]): RawJson {
  return new RawJson(`[${items.join(',')}]`);
}

/** JSON.stringify for a response body whose top-level values may be RawJson (spliced in unchanged). */
export function serializeBody(body: Record<string, unknown>): string {
  const raw: [string, RawJson][] = [];
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    if (v instanceof RawJson) raw.push([k, v]);
    else if (v !== undefined) rest[k] = v;
  }
  const restJson = JSON.stringify(rest);
  if (raw.length === 0) return restJson;
  const spliced = raw.map(([k, v]) => `${JSON.stringify(k)}:${v.json}`).join(',');
  return restJson === '{}' ? `{${spliced}}` : `{${spliced},${restJson.slice(1)}`;
}
