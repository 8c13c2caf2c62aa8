import type { Db } from '../../db/client.js';
import type { CallType } from '../../domain/calls.js';
import { AppError, notFound, unprocessable } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { pagination } from '../../domain/pagination.js';
import type { OrgScope } from '../../domain/scope.js';
import type { VoicePurpose } from '../../integrations/voice/voice-provider.js';
import {
  clearDefault,
  defaultTemplate,
  deleteTemplate,
  findVisibleTemplate,
  insertTemplate,
  listVisibleTemplates,
  ownDefaultPurposes,
  syncBuiltinTemplates,
  updateTemplate,
  type VoiceTemplateRow,
} from './voice-templates-repository.js';
import type {
  CreateVoiceTemplateInput,
  ListVoiceTemplatesQuery,
  UpdateVoiceTemplateInput,
  VoiceTemplate,
} from './voice-templates-schemas.js';
import { NEVER_SAID, VOICE_VARIABLES } from './voice-variables.js';

export type { VoiceTemplateRow };

/** The purpose a call type's template must have; null (no call type) takes any. */
const PURPOSE_OF_CALL_TYPE: Record<CallType, VoicePurpose> = { LOAD_BOOKING: 'load_booking', ELP: 'elp' };

export function toVoiceTemplate(row: VoiceTemplateRow, ownDefaults: Set<VoicePurpose>): VoiceTemplate {
  const builtin = row.organization_id === null;
  return {
    id: row.id,
    organization_id: row.organization_id,
    name: row.name,
    purpose: row.purpose,
    first_message: row.first_message,
    instructions: row.instructions,
    voicemail_message: row.voicemail_message,
    voice: row.voice,
    model: row.model,
    is_default: builtin ? !ownDefaults.has(row.purpose) : row.is_default,
    is_builtin: builtin,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

const readOnly = (id: string) =>
  new AppError(
    403,
    'insufficient_permissions',
    `Voice template '${id}' is built in and read-only: create your own with POST /voice-templates`,
    'template_id',
  );

export class VoiceTemplatesService {
  constructor(private readonly db: Db) {}

  /** Brings the built-in templates up to this version's text (at start). */
  syncBuiltins() {
    return syncBuiltinTemplates(this.db);
  }

  variables() {
    return {
      data: Object.entries(VOICE_VARIABLES).map(([name, description]) => ({ name, description })),
      never_available: NEVER_SAID.map((n) => (n === 'notes' ? 'stop notes' : n)),
    };
  }

  async list(scope: OrgScope, q: ListVoiceTemplatesQuery) {
    const [{ rows, total }, defaults] = await Promise.all([
      listVisibleTemplates(this.db, scope, q),
      ownDefaultPurposes(this.db, scope),
    ]);
    return {
      data: rows.map((r) => toVoiceTemplate(r, defaults)),
      pagination: pagination(q.page, q.page_size, total),
    };
  }

  async get(scope: OrgScope, id: string): Promise<VoiceTemplate> {
    const row = await findVisibleTemplate(this.db, scope, id);
    if (!row) throw notFound('Voice template', id, 'template_id');
    return toVoiceTemplate(row, await ownDefaultPurposes(this.db, scope));
  }

  async create(scope: OrgScope, input: CreateVoiceTemplateInput): Promise<VoiceTemplate> {
    // Read back in the transaction: the answer comes with the commit, never after it.
    return this.db.transaction(async (tx) => {
      if (input.is_default) await clearDefault(tx, scope, input.purpose);
      const row = await insertTemplate(tx, scope, {
        id: newId('voiceTemplate'),
        name: input.name.trim(),
        purpose: input.purpose,
        first_message: input.first_message,
        instructions: input.instructions,
        voicemail_message: input.voicemail_message ?? null,
        voice: input.voice ?? null,
        model: input.model ?? null,
        is_default: input.is_default,
      });
      return toVoiceTemplate(row, await ownDefaultPurposes(tx, scope));
    });
  }

  async update(scope: OrgScope, id: string, input: UpdateVoiceTemplateInput): Promise<VoiceTemplate> {
    const current = await findVisibleTemplate(this.db, scope, id);
    if (!current) throw notFound('Voice template', id, 'template_id');
    if (current.organization_id === null) throw readOnly(id);
    const purpose = input.purpose ?? current.purpose;
    const isDefault = input.is_default ?? current.is_default;
    // Read back in the transaction, as create does.
    return this.db.transaction(async (tx) => {
      // Becoming the default (or moving to a purpose while default) unsets the one it replaces.
      if (isDefault && (!current.is_default || purpose !== current.purpose)) {
        await clearDefault(tx, scope, purpose);
      }
      const changes: Parameters<typeof updateTemplate>[3] = {};
      if (input.name !== undefined) changes.name = input.name.trim();
      if (input.purpose !== undefined) changes.purpose = input.purpose;
      if (input.first_message !== undefined) changes.first_message = input.first_message;
      if (input.instructions !== undefined) changes.instructions = input.instructions;
      if (input.voicemail_message !== undefined) changes.voicemail_message = input.voicemail_message;
      if (input.voice !== undefined) changes.voice = input.voice;
      if (input.model !== undefined) changes.model = input.model;
      if (input.is_default !== undefined) changes.is_default = input.is_default;
      const row = await updateTemplate(tx, scope, id, changes);
      if (!row) throw notFound('Voice template', id, 'template_id');
      return toVoiceTemplate(row, await ownDefaultPurposes(tx, scope));
    });
  }

  async delete(scope: OrgScope, id: string): Promise<void> {
    const current = await findVisibleTemplate(this.db, scope, id);
    if (!current) throw notFound('Voice template', id, 'template_id');
    if (current.organization_id === null) throw readOnly(id);
    await deleteTemplate(this.db, scope, id);
  }

  /**
   * The template a call uses. A named one must be visible to the organization and fit the call
   * type (LOAD_BOOKING: load_booking, ELP: elp, none: any), else 422 on `template_id`. Without one,
   * the organization's default for the purpose, else the built-in.
   */
  async forCall(
    scope: OrgScope,
    templateId: string | null | undefined,
    callType: CallType | null,
    purpose: VoicePurpose,
  ): Promise<VoiceTemplateRow> {
    if (templateId) {
      const row = await findVisibleTemplate(this.db, scope, templateId);
      if (!row) {
        throw unprocessable(
          'validation_error',
          `Voice template '${templateId}' does not exist`,
          'template_id',
        );
      }
      const wanted = callType ? PURPOSE_OF_CALL_TYPE[callType] : null;
      if (wanted && row.purpose !== wanted) {
        throw unprocessable(
          'validation_error',
          `Voice template '${templateId}' is for ${row.purpose} calls, not ${callType} calls (purpose ${wanted})`,
          'template_id',
        );
      }
      return row;
    }
    return this.defaultFor(scope, purpose);
  }

  async defaultFor(scope: OrgScope, purpose: VoicePurpose): Promise<VoiceTemplateRow> {
    let row = await defaultTemplate(this.db, scope, purpose);
    if (!row) {
      // A database no server has started on yet (the admin CLI, a benchmark): write the built-ins.
      await this.syncBuiltins();
      row = await defaultTemplate(this.db, scope, purpose);
    }
    if (!row) throw new Error(`No built-in voice template for ${purpose}`);
    return row;
  }

  /** A template by id as stored, when still visible (a scheduled call placed later). */
  async find(scope: OrgScope, id: string) {
    return findVisibleTemplate(this.db, scope, id);
  }
}
