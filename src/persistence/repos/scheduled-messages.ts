// Scheduled messages: what to send, when, and whether it was delivered (exactly once) or failed.
import type { IDatabase } from 'pg-promise';
import type { DeliveryType, DueEntry, NewScheduledMessage, ScheduledChanges, ScheduledMessage } from '../../model/scheduled.js';

const COLUMNS = `id, realm_id, sender_id, type, stream_id, user_ids, topic, content, rendered_content, scheduled_at, read_by_sender,
  sending_client, version, delivered, delivered_message_id, failed, failure_message, delivery_type, reminder_target_message_id`;

function toScheduled(r: Record<string, any>): ScheduledMessage {
  return {
    id: Number(r.id),
    realmId: r.realm_id,
    senderId: r.sender_id,
    type: r.type,
    channelId: r.stream_id,
    userIds: r.user_ids,
    topic: r.topic,
    content: r.content,
    renderedContent: r.rendered_content,
    scheduledAt: Number(r.scheduled_at),
    readBySender: r.read_by_sender,
    sendingClient: r.sending_client,
    version: r.version,
    delivered: r.delivered,
    deliveredMessageId: r.delivered_message_id === null ? null : Number(r.delivered_message_id),
    failed: r.failed,
    failureMessage: r.failure_message,
    deliveryType: r.delivery_type,
    reminderTargetMessageId: r.reminder_target_message_id === null ? null : Number(r.reminder_target_message_id),
  };
}

export class ScheduledMessagesRepository {
  constructor(private db: IDatabase<unknown>) {}

  async insert(m: NewScheduledMessage): Promise<ScheduledMessage> {
    const r = await this.db.one(
      `INSERT INTO scheduled_messages (realm_id, sender_id, type, stream_id, user_ids, topic, content, rendered_content, scheduled_at,
                                       read_by_sender, sending_client, delivery_type, reminder_target_message_id)
       VALUES ($1, $2, $3, $4, $5::int[], $6, $7, $8, $9, $10, $11, $12, $13) RETURNING ${COLUMNS}`,
      [
        m.realmId, m.senderId, m.type, m.channelId, m.userIds, m.topic, m.content, m.renderedContent, m.scheduledAt, m.readBySender, m.sendingClient,
        m.deliveryType ?? 'send', m.reminderTargetMessageId ?? null,
      ],
    );
    return toScheduled(r);
  }

  /** The sender's undelivered scheduled messages or reminders (failed ones included), soonest first. */
  async undeliveredOf(senderId: number, deliveryType: DeliveryType = 'send'): Promise<ScheduledMessage[]> {
    const rows = await this.db.any(
      `SELECT ${COLUMNS} FROM scheduled_messages WHERE sender_id = $1 AND delivery_type = $2 AND NOT delivered ORDER BY scheduled_at, id`,
      [senderId, deliveryType],
    );
    return rows.map(toScheduled);
  }

  async byId(id: number): Promise<ScheduledMessage | null> {
    const r = await this.db.oneOrNone(`SELECT ${COLUMNS} FROM scheduled_messages WHERE id = $1`, [id]);
    return r ? toScheduled(r) : null;
  }

  /** A message (or reminder) of the sender, locked for an edit or a cancellation; null when the sender has none with that ID. */
  async lockOf(senderId: number, id: number, deliveryType: DeliveryType = 'send'): Promise<ScheduledMessage | null> {
    const r = await this.db.oneOrNone(`SELECT ${COLUMNS} FROM scheduled_messages WHERE id = $1 AND sender_id = $2 AND delivery_type = $3 FOR UPDATE`, [
      id,
      senderId,
      deliveryType,
    ]);
    return r ? toScheduled(r) : null;
  }

  /** Applies an edit, clears a failure and bumps the version (a delivery that read the old one will not claim it). */
  async update(id: number, c: ScheduledChanges): Promise<ScheduledMessage> {
    const r = await this.db.one(
      `UPDATE scheduled_messages SET
         type = coalesce($2, type),
         stream_id = CASE WHEN $2::text IS NULL THEN stream_id ELSE $3::int END,
         user_ids = CASE WHEN $2::text IS NULL THEN user_ids ELSE $4::int[] END,
         topic = coalesce($5, topic),
         content = coalesce($6, content),
         rendered_content = coalesce($7, rendered_content),
         scheduled_at = coalesce($8, scheduled_at),
         failed = false, failure_message = NULL,
         version = version + 1
       WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, c.type ?? null, c.channelId ?? null, c.userIds ?? null, c.topic ?? null, c.content ?? null, c.renderedContent ?? null, c.scheduledAt ?? null],
    );
    return toScheduled(r);
  }

  async delete(id: number): Promise<void> {
    await this.db.none('DELETE FROM scheduled_messages WHERE id = $1', [id]);
  }

  /** Every message still to be delivered, all realms (the delivery actor's start-up load). */
  async pending(): Promise<DueEntry[]> {
    const rows = await this.db.any('SELECT id, realm_id, scheduled_at FROM scheduled_messages WHERE NOT delivered AND NOT failed ORDER BY scheduled_at, id');
    return rows.map((r) => ({ id: Number(r.id), realmId: r.realm_id, scheduledAt: Number(r.scheduled_at) }));
  }

  /**
   * Claims a message for delivery in the caller's transaction: the row, locked, if it is still pending at the
   * version the caller read; null when it was delivered, failed, edited, cancelled, or another process holds it.
   */
  async claim(id: number, version: number): Promise<ScheduledMessage | null> {
    const r = await this.db.oneOrNone(
      `SELECT ${COLUMNS} FROM scheduled_messages WHERE id = $1 AND version = $2 AND NOT delivered AND NOT failed FOR UPDATE SKIP LOCKED`,
      [id, version],
    );
    return r ? toScheduled(r) : null;
  }

  async markDelivered(id: number, messageId: number): Promise<void> {
    await this.db.none('UPDATE scheduled_messages SET delivered = true, delivered_message_id = $2 WHERE id = $1', [id, messageId]);
  }

  async markFailed(id: number, reason: string): Promise<ScheduledMessage> {
    return toScheduled(
      await this.db.one(`UPDATE scheduled_messages SET failed = true, failure_message = $2 WHERE id = $1 RETURNING ${COLUMNS}`, [id, reason]),
    );
  }
}
