/** What other modules use of the loads. */
export {
  findLoadFields,
  findLoadsByNumber,
  findStopOfLoad,
  LOAD_ID_IN_BODY,
  LOAD_ID_IN_PATH,
  type LoadReader,
  type LoadReference,
  openLoadsOnLane,
  repUserIdOf,
  requireLoad,
  type StopRow,
} from './load-lookup.js';
export { type Load, loadFilters } from './loads-schemas.js';
