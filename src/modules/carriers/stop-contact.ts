import type { Db, DbOrTx } from '../../db/client.js';
import { productNow } from '../../db/columns.js';
import { newId } from '../../domain/ids.js';
import type { OrgScope } from '../../domain/scope.js';
import { defined } from '../../lib/defined.js';
import { insertAudit } from '../audit/index.js';
import { carrierPayload } from './carrier-shape.js';
import { emitEvent } from './carriers-events.js';
import { findCarrier, setCarrierFields } from './carriers-repository.js';

/**
 * The carrier's contacts that are queued and not made yet, withdrawn in the caller's transaction.
 * The module that queues contacts implements it (carriers cannot depend on it: it depends on
 * carriers); the composition hands it to `StopContactRequests`.
 */
export interface QueuedContacts {
  withdrawForCarrier(tx: DbOrTx, organizationId: string, carrierId: string, reason: string): Promise<unknown>;
}

/** How the request reached us; the audit row says so. */
export type StopContactSource = 'api' | 'call' | 'email' | 'whatsapp' | 'spam_complaint' | 'unsubscribe';

const SOURCE_NOTE: Record<StopContactSource, string> = {
  api: 'recorded through the API',
  call: 'asked on a call',
  email: 'asked in an e-mail reply',
  whatsapp: 'asked in a WhatsApp message',
  spam_complaint: 'marked our e-mail as spam',
  unsubscribe: 'unsubscribed from our e-mail',
};

/**
 * THE way a carrier's request not to be contacted is honoured, whichever way it arrives (POST
 * /carriers/{id}/stop-contact, the voice tool, an e-mail or WhatsApp reply, a spam complaint or an
 * unsubscribe): in one transaction the carrier is stamped once, the first stamp audited and
 * announced (`carrier.updated`), and its queued automated contacts withdrawn. A repeat leaves the
 * stamp as it was, writes no audit row and no event, and still withdraws whatever is queued.
 */
export class StopContactRequests {
  constructor(
    private readonly db: Db,
    private readonly queued: QueuedContacts,
  ) {}

  /** Returns false when the carrier is not one of the organization's. */
  async request(
    scope: OrgScope,
    carrierId: string,
    source: StopContactSource,
    within?: DbOrTx,
  ): Promise<boolean> {
    // `within`: the caller's transaction (a carrier's turn), else one of its own.
    return (within ?? this.db).transaction(async (tx) => {
      const current = await findCarrier(tx, scope, carrierId, true);
      if (!current) return false;
      if (!current.stop_contact_requested_at) {
        const stamped = await setCarrierFields(tx, scope, carrierId, {
          stop_contact_requested_at: productNow,
        });
        await insertAudit(
          tx,
          scope,
          [
            {
              entity_type: 'carrier',
              entity_id: carrierId,
              action: 'stop_contact_requested',
              reason_note: SOURCE_NOTE[source],
              before: { stop_contact_requested_at: null },
              after: { stop_contact_requested_at: defined(stamped, 'stamped').stop_contact_requested_at },
            },
          ],
          () => newId('audit'),
        );
        await emitEvent(tx, scope.organizationId, 'carrier.updated', carrierPayload(tx, scope, carrierId));
      }
      await this.queued.withdrawForCarrier(
        tx,
        scope.organizationId,
        carrierId,
        'cancelled: the carrier asked not to be contacted',
      );
      return true;
    });
  }
}
