/** What other modules use of the saved load views. */
export { findVisibleLoadView } from './load-view-queries.js';
