import { and, count, desc, eq, isNull, or, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { productNow } from '../../db/columns.js';
import { firstRow } from '../../db/rows.js';
import { offsetOf } from '../../domain/pagination.js';
import type { OrgScope } from '../../domain/scope.js';
import type { VoicePurpose } from '../../integrations/voice/voice-provider.js';
import { BUILTIN_CREATED_AT, BUILTIN_TEMPLATES } from './builtin-templates.js';
import type { ListVoiceTemplatesQuery } from './voice-templates-schemas.js';
import { voiceTemplates } from './voice-templates-tables.js';

export type VoiceTemplateRow = typeof voiceTemplates.$inferSelect;

/** The organization's own templates and the built-in ones. */
const visibleTo = (scope: OrgScope) =>
  or(eq(voiceTemplates.organization_id, scope.organizationId), isNull(voiceTemplates.organization_id));

export async function findVisibleTemplate(db: DbOrTx, scope: OrgScope, id: string) {
  const [row] = await db
    .select()
    .from(voiceTemplates)
    .where(and(eq(voiceTemplates.id, id), visibleTo(scope)));
  return row ?? null;
}

export async function listVisibleTemplates(db: DbOrTx, scope: OrgScope, q: ListVoiceTemplatesQuery) {
  const conditions: (SQL | undefined)[] = [visibleTo(scope)];
  if (q.purpose) conditions.push(eq(voiceTemplates.purpose, q.purpose));
  if (q.is_builtin !== undefined) {
    conditions.push(
      q.is_builtin
        ? isNull(voiceTemplates.organization_id)
        : sql`${voiceTemplates.organization_id} IS NOT NULL`,
    );
  }
  const where = and(...conditions);
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(voiceTemplates)
      .where(where)
      .orderBy(desc(voiceTemplates.created_at), desc(voiceTemplates.id))
      .limit(q.page_size)
      .offset(offsetOf(q.page, q.page_size)),
    db.select({ n: count() }).from(voiceTemplates).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}

/** Purposes for which the organization has a default of its own. */
export async function ownDefaultPurposes(db: DbOrTx, scope: OrgScope): Promise<Set<VoicePurpose>> {
  const rows = await db
    .select({ purpose: voiceTemplates.purpose })
    .from(voiceTemplates)
    .where(
      and(eq(voiceTemplates.organization_id, scope.organizationId), eq(voiceTemplates.is_default, true)),
    );
  return new Set(rows.map((r) => r.purpose));
}

/** The template a call of this purpose uses when it names none: the organization's default, else the built-in. */
export async function defaultTemplate(db: DbOrTx, scope: OrgScope, purpose: VoicePurpose) {
  const [row] = await db
    .select()
    .from(voiceTemplates)
    .where(
      and(
        eq(voiceTemplates.purpose, purpose),
        or(
          and(eq(voiceTemplates.organization_id, scope.organizationId), eq(voiceTemplates.is_default, true)),
          isNull(voiceTemplates.organization_id),
        ),
      ),
    )
    .orderBy(sql`${voiceTemplates.organization_id} IS NULL`)
    .limit(1);
  return row ?? null;
}

export async function insertTemplate(
  db: DbOrTx,
  scope: OrgScope,
  values: Omit<typeof voiceTemplates.$inferInsert, 'organization_id'>,
) {
  return firstRow(
    await db
      .insert(voiceTemplates)
      .values({ ...values, organization_id: scope.organizationId })
      .returning(),
    'insertTemplate',
  );
}

export async function updateTemplate(
  db: DbOrTx,
  scope: OrgScope,
  id: string,
  changes: Partial<typeof voiceTemplates.$inferInsert>,
) {
  const [row] = await db
    .update(voiceTemplates)
    .set({ ...changes, updated_at: productNow })
    .where(and(eq(voiceTemplates.organization_id, scope.organizationId), eq(voiceTemplates.id, id)))
    .returning();
  return row ?? null;
}

/** Unsets the organization's default for a purpose (before another template takes the place). */
export async function clearDefault(db: DbOrTx, scope: OrgScope, purpose: VoicePurpose) {
  await db
    .update(voiceTemplates)
    .set({ is_default: false, updated_at: productNow })
    .where(
      and(
        eq(voiceTemplates.organization_id, scope.organizationId),
        eq(voiceTemplates.purpose, purpose),
        eq(voiceTemplates.is_default, true),
      ),
    );
}

export async function deleteTemplate(db: DbOrTx, scope: OrgScope, id: string) {
  const rows = await db
    .delete(voiceTemplates)
    .where(and(eq(voiceTemplates.organization_id, scope.organizationId), eq(voiceTemplates.id, id)))
    .returning({ id: voiceTemplates.id });
  return rows.length > 0;
}

/**
 * Writes the built-in templates as this version of the service defines them. Run at start by
 * every instance; a row already equal is left alone, so concurrent starts are harmless.
 */
export async function syncBuiltinTemplates(db: DbOrTx) {
  await db
    .insert(voiceTemplates)
    .values(
      BUILTIN_TEMPLATES.map((t) => ({
        ...t,
        organization_id: null,
        voice: null,
        model: null,
        is_default: false,
        created_at: BUILTIN_CREATED_AT,
        updated_at: BUILTIN_CREATED_AT,
      })),
    )
    .onConflictDoUpdate({
      target: voiceTemplates.id,
      set: {
        name: sql`excluded.name`,
        purpose: sql`excluded.purpose`,
        first_message: sql`excluded.first_message`,
        instructions: sql`excluded.instructions`,
        voicemail_message: sql`excluded.voicemail_message`,
        updated_at: productNow,
      },
      setWhere: sql`(${voiceTemplates.name}, ${voiceTemplates.purpose}, ${voiceTemplates.first_message}, ${voiceTemplates.instructions}, ${voiceTemplates.voicemail_message})
        IS DISTINCT FROM (excluded.name, excluded.purpose, excluded.first_message, excluded.instructions, excluded.voicemail_message)`,
    });
}
