/** What other modules use of the agent: the results read how its replies were read. */
export { readerAgreement } from './reader-agreement.js';
