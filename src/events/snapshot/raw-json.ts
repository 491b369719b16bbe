// Register responses carry the realm's user list, the bulk of their bytes: its records are serialized once per
// user version (src/events/snapshot/realm-users.ts), kept as UTF-8 bytes and spliced into the response as they
// are, so a register neither serializes nor encodes them again, nor copies them: the body is a list of parts that
// src/http/respond.ts writes one after the other.

/** A value already serialized as JSON, as UTF-8 chunks. Serializers other than `serializeBody` get the parsed value. */
export class RawJson {
  readonly chunks: readonly Buffer[];
  constructor(json: string | readonly Buffer[]) {
    this.chunks = typeof json === 'string' ? [Buffer.from(json)] : json;
  }
  get json(): string {
    return Buffer.concat(this.chunks).toString();
  }
  toJSON(): unknown {
    return JSON.parse(this.json);
  }
}

const COMMA = Buffer.from(',');

/** JSON.stringify for a response body whose top-level values may be RawJson (spliced in unchanged), as UTF-8 parts
 *  to be written one after the other (the spliced values are not copied). */
export function serializeBody(body: Record<string, unknown>): Buffer[] {
  const raw: [string, RawJson][] = [];
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    if (v instanceof RawJson) raw.push([k, v]);
    else if (v !== undefined) rest[k] = v;
  }
  const restJson = Buffer.from(JSON.stringify(rest));
  if (raw.length === 0) return [restJson];
  const parts: Buffer[] = [];
  raw.forEach(([k, v], i) => {
    parts.push(Buffer.from(`${i === 0 ? '{' : ','}${JSON.stringify(k)}:`), ...v.chunks);
  });
  // The rest without its opening brace: '}' alone when empty, else a comma and its fields.
  if (restJson.length > 2) parts.push(COMMA);
  parts.push(restJson.subarray(1));
  return parts;
}
