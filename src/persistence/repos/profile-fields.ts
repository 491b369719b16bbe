// Custom profile fields of a realm and the values users gave them.
import type { IDatabase } from 'pg-promise';
import type { NewProfileField, ProfileField, ProfileFieldChanges, ProfileValue } from '../../model/people.js';

const COLUMNS = 'id, realm_id, name, hint, field_type, field_data, "order", display_in_profile_summary, required, editable_by_user';

function toField(r: Record<string, any>): ProfileField {
  return {
    id: r.id,
    realmId: r.realm_id,
    name: r.name,
    hint: r.hint,
    type: r.field_type,
    fieldData: r.field_data,
    order: r.order,
    displayInProfileSummary: r.display_in_profile_summary,
    required: r.required,
    editableByUser: r.editable_by_user,
  };
}

export class ProfileFieldsRepository {
  constructor(private db: IDatabase<unknown>) {}

  async forRealm(realmId: number): Promise<ProfileField[]> {
    return (await this.db.any(`SELECT ${COLUMNS} FROM custom_profile_fields WHERE realm_id = $1 ORDER BY "order", id`, [realmId])).map(toField);
  }

  /** Every value of the realm's users, by user ID then field ID. */
  async valuesForRealm(realmId: number): Promise<Map<number, Map<number, ProfileValue>>> {
    const rows = await this.db.any(
      `SELECT v.user_id, v.field_id, v.value, v.rendered_value FROM custom_profile_field_values v
         JOIN custom_profile_fields f ON f.id = v.field_id WHERE f.realm_id = $1`,
      [realmId],
    );
    const out = new Map<number, Map<number, ProfileValue>>();
    for (const r of rows) {
      let m = out.get(r.user_id);
      if (!m) out.set(r.user_id, (m = new Map()));
      m.set(r.field_id, { value: r.value, renderedValue: r.rendered_value });
    }
    return out;
  }

  /** Adds a field; its order is its ID (the reference's rule: new fields go last). */
  async insert(f: NewProfileField): Promise<ProfileField> {
    const { id } = await this.db.one(
      `INSERT INTO custom_profile_fields (realm_id, name, hint, field_type, field_data, display_in_profile_summary, required, editable_by_user)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
      [f.realmId, f.name, f.hint, f.type, f.fieldData, f.displayInProfileSummary, f.required, f.editableByUser],
    );
    return toField(await this.db.one(`UPDATE custom_profile_fields SET "order" = id WHERE id = $1 RETURNING ${COLUMNS}`, [id]));
  }

  async update(id: number, c: ProfileFieldChanges): Promise<ProfileField> {
    const r = await this.db.one(
      `UPDATE custom_profile_fields SET name = coalesce($2, name), hint = coalesce($3, hint), field_data = coalesce($4, field_data),
         display_in_profile_summary = coalesce($5, display_in_profile_summary), required = coalesce($6, required),
         editable_by_user = coalesce($7, editable_by_user)
       WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, c.name ?? null, c.hint ?? null, c.fieldData ?? null, c.displayInProfileSummary ?? null, c.required ?? null, c.editableByUser ?? null],
    );
    return toField(r);
  }

  /** Deletes the field and every user's value of it. */
  delete(id: number): Promise<null> {
    return this.db.none('DELETE FROM custom_profile_fields WHERE id = $1', [id]);
  }

  /** Stores new orders, by field ID. */
  reorder(orders: Map<number, number>): Promise<null> {
    return this.db.none(
      `UPDATE custom_profile_fields f SET "order" = o.ord FROM unnest($1::int[], $2::int[]) AS o(id, ord) WHERE f.id = o.id`,
      [[...orders.keys()], [...orders.values()]],
    );
  }

  setValue(userId: number, fieldId: number, v: ProfileValue): Promise<null> {
    return this.db.none(
      `INSERT INTO custom_profile_field_values (user_id, field_id, value, rendered_value) VALUES ($1, $2, $3, $4)
       ON CONFLICT (user_id, field_id) DO UPDATE SET value = $3, rendered_value = $4`,
      [userId, fieldId, v.value, v.renderedValue],
    );
  }

  deleteValue(userId: number, fieldId: number): Promise<null> {
    return this.db.none('DELETE FROM custom_profile_field_values WHERE user_id = $1 AND field_id = $2', [userId, fieldId]);
  }

  /** Removes the values of a list-of-options field that chose one of `options` (options that were removed). */
  deleteChoices(fieldId: number, options: string[]): Promise<null> {
    if (options.length === 0) return Promise.resolve(null);
    return this.db.none('DELETE FROM custom_profile_field_values WHERE field_id = $1 AND value = ANY($2::text[])', [fieldId, options]);
  }
}
