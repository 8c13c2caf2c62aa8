import { and, asc, eq } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client.js';
import { productNow } from '../../db/columns.js';
import { translatePgError } from '../../db/pg-errors.js';
import { firstRow } from '../../db/rows.js';
import { notFound } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import type { OrgScope } from '../../domain/scope.js';
import type { VoiceProvider } from '../../integrations/voice/voice-provider.js';
import type { CreateVoiceNumberInput } from './voice-numbers-schemas.js';
import { voiceNumbers } from './voice-numbers-tables.js';

export type VoiceNumberRow = typeof voiceNumbers.$inferSelect;

/** The number the organization's calls go out from, or null for the service's default. */
export async function outboundNumberId(db: DbOrTx, organizationId: string, provider: string) {
  const [row] = await db
    .select({ id: voiceNumbers.phone_number_id })
    .from(voiceNumbers)
    .where(
      and(
        eq(voiceNumbers.organization_id, organizationId),
        eq(voiceNumbers.provider, provider),
        eq(voiceNumbers.outbound, true),
      ),
    );
  return row?.id ?? null;
}

/** The organization that registered the number called, or null. */
export async function organizationOfNumber(db: DbOrTx, provider: string, phoneNumberId: string) {
  const [row] = await db
    .select({ organizationId: voiceNumbers.organization_id })
    .from(voiceNumbers)
    .where(and(eq(voiceNumbers.provider, provider), eq(voiceNumbers.phone_number_id, phoneNumberId)));
  return row?.organizationId ?? null;
}

/** The organization's voice numbers, and what the voice platform runs with. */
export class VoiceNumbersService {
  constructor(
    private readonly db: Db,
    private readonly provider: VoiceProvider,
  ) {}

  list(scope: OrgScope) {
    return this.db
      .select()
      .from(voiceNumbers)
      .where(eq(voiceNumbers.organization_id, scope.organizationId))
      .orderBy(asc(voiceNumbers.created_at), asc(voiceNumbers.id));
  }

  /** Registers a number; `outbound` makes it the caller ID (the previous one is unset). */
  async create(scope: OrgScope, input: CreateVoiceNumberInput): Promise<VoiceNumberRow> {
    try {
      return await this.db.transaction(async (tx) => {
        if (input.outbound) await this.unsetOutbound(tx, scope);
        return firstRow(
          await tx
            .insert(voiceNumbers)
            .values({
              id: newId('voiceNumber'),
              organization_id: scope.organizationId,
              provider: this.provider.name === 'simulated' ? 'vapi' : this.provider.name,
              phone_number_id: input.phone_number_id,
              phone_number: input.phone_number ?? null,
              outbound: input.outbound ?? false,
            })
            .returning(),
          'insert voice number',
        );
      });
    } catch (err) {
      throw translatePgError(err) ?? err;
    }
  }

  private async unsetOutbound(tx: DbOrTx, scope: OrgScope) {
    await tx
      .update(voiceNumbers)
      .set({ outbound: false, updated_at: productNow })
      .where(and(eq(voiceNumbers.organization_id, scope.organizationId), eq(voiceNumbers.outbound, true)));
  }

  async remove(scope: OrgScope, id: string) {
    const [row] = await this.db
      .delete(voiceNumbers)
      .where(and(eq(voiceNumbers.id, id), eq(voiceNumbers.organization_id, scope.organizationId)))
      .returning({ id: voiceNumbers.id });
    if (!row) throw notFound('Voice number', id, 'voice_number_id');
  }

  /** `GET /voice/health`: the platform's settings (never a secret) and this organization's caller ID. */
  async health(scope: OrgScope) {
    const settings = this.provider.settings();
    const own = await outboundNumberId(this.db, scope.organizationId, 'vapi');
    const source: 'organization' | 'default' = own ? 'organization' : 'default';
    return {
      ...settings,
      outbound_phone_number_id:
        settings.provider === 'vapi'
          ? (own ??
            (typeof settings.default_phone_number_id === 'string' ? settings.default_phone_number_id : null))
          : null,
      outbound_phone_number_source: settings.provider === 'vapi' ? source : null,
    };
  }
}
