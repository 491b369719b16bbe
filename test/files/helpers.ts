// Fixtures for the files tests: uploads over HTTP, messages inserted straight into the store and linked to
// their uploads the way the send path does, and raw requests for bodies a helper client cannot send.
import net from 'node:net';
import type { Tx } from '../../src/persistence/db.js';
import { linkAttachments } from '../../src/realm/files/index.js';
import type { Credentials } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';

export async function realmOf(s: TestServer) {
  return s.server.services.realms.forHost(undefined);
}

/** POST /user_uploads with one file; the parsed response. */
export async function upload(s: TestServer, as: Credentials, name: string, data: string | Buffer, type = 'application/octet-stream') {
  const r = await s.client.as(as).post('/user_uploads', { multipart: { file: new File([typeof data === 'string' ? data : new Uint8Array(data)], name, { type }) } });
  if (r.status !== 200) throw new Error(`upload failed: ${r.status} ${r.text}`);
  return r.json as { url: string; uri: string; filename: string };
}

/** GET of a download URL (outside /api/v1), optionally as nobody. */
export function download(s: TestServer, url: string, as: Credentials | null, headers: Record<string, string> = {}) {
  const client = as ? s.client.as(as) : s.client;
  return client.get(url, { root: true, headers });
}

/**
 * A message as the messages domain stores it: the row, a user_messages row per recipient, and the attachment
 * links recorded in the same transaction with linkAttachments. Returns the message ID.
 */
export async function insertMessage(
  s: TestServer,
  m: { senderId: number; content: string; channelId?: number; topic?: string; recipients: number[] },
): Promise<number> {
  const realm = await realmOf(s);
  const { db } = s.server.services;
  return db.tx(async (t: Tx) => {
    const { id } = await t.one(
      `INSERT INTO messages (realm_id, sender_id, recipient_kind, stream_id, topic, direct_recipients, content, rendered_content)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING id`,
      [
        realm.state.realm.id,
        m.senderId,
        m.channelId === undefined ? 'direct' : 'stream',
        m.channelId ?? null,
        m.topic ?? '',
        m.channelId === undefined ? m.recipients : null,
        m.content,
      ],
    );
    const messageId = Number(id);
    for (const u of new Set([m.senderId, ...m.recipients])) {
      await t.none('INSERT INTO user_messages (user_id, message_id, flags) VALUES ($1, $2, 0)', [u, messageId]);
    }
    await linkAttachments(t, realm.state, messageId, m.content, m.senderId);
    return messageId;
  });
}

/** Writes a raw HTTP request and returns whatever came back before the server closed or `ms` passed. */
export function raw(port: number, request: Buffer | string, ms = 3000): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const sock = net.connect(port, '127.0.0.1', () => sock.write(request));
    const done = () => {
      sock.destroy();
      resolve(Buffer.concat(chunks).toString('latin1'));
    };
    sock.on('data', (c) => chunks.push(c));
    sock.on('close', done);
    sock.on('error', done);
    setTimeout(done, ms).unref();
  });
}
