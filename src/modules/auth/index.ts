/** What other modules use of the users and organizations. */
export { findUserById } from './user-reads.js';
