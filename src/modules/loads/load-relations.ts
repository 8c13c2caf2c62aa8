// What the loads' reads show of the records other modules keep about a load: the tabs over
// outreaches, calls and offers, a load's booking, and a saved view's filters. Those modules sit
// above loads (their rows name a load), so the read-side module load-board puts this together and
// the composition root hands it to LoadsService.

import type { OrgScope } from '../../domain/scope.js';
import type { RelatedTab, RelatedTabName } from './loads-list-filters.js';
import type { BookedOffer } from './loads-schemas.js';

export interface LoadRelations {
  /** The list's tabs over other modules' records. */
  readonly tabs: Readonly<Record<RelatedTabName, RelatedTab>>;
  /** The bookings of these loads (their accepted offers), by load id. */
  bookedOffers(scope: OrgScope, loadIds: string[]): Promise<Map<string, BookedOffer>>;
  /** A saved view's stored filters; null when the view does not exist or the caller cannot see it. */
  viewFilters(scope: OrgScope, viewId: string): Promise<{ filters: unknown } | null>;
}
