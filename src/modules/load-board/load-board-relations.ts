// The read side of the load board: what the loads' reads show of the records other modules keep
// about a load. The list's tabs over outreaches, calls and offers (each a condition that module
// writes over its own table, put into the list's one statement), a load's booking, and a saved
// view's filters. This module sits above loads and the modules it reads, so none of them imports
// another for it; the composition root hands what it builds to LoadsService.

import type { DbOrTx } from '../../db/client.js';
import { countLoadsWithCalls, loadHasCall } from '../calls/index.js';
import { findVisibleLoadView } from '../load-views/index.js';
import type { LoadRelations } from '../loads/index.js';
import {
  bookedOffersOf,
  countBookedLoads,
  countLoadsWithActiveOffer,
  loadHasActiveOffer,
  loadIsBooked,
} from '../offers/index.js';
import { countLoadsWithActiveOutreach, loadHasActiveOutreach } from '../outreaches/index.js';

export function loadRelations(db: DbOrTx): LoadRelations {
  return {
    tabs: {
      active_outreaches: {
        condition: loadHasActiveOutreach,
        countAlone: countLoadsWithActiveOutreach,
        source: 'outreaches',
      },
      all_calls: { condition: loadHasCall, countAlone: countLoadsWithCalls, source: 'calls' },
      active_offers: {
        condition: loadHasActiveOffer,
        countAlone: countLoadsWithActiveOffer,
        source: 'offers',
      },
      booked: { condition: loadIsBooked, countAlone: countBookedLoads, source: 'offers' },
    },
    bookedOffers: (scope, loadIds) => bookedOffersOf(db, scope, loadIds),
    viewFilters: (scope, viewId) => findVisibleLoadView(db, scope, viewId),
  };
}
