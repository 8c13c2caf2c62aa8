/** What the composition root uses of the load board's read side. */
export { loadRelations } from './load-board-relations.js';
