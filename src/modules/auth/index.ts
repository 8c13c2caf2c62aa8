/** What other modules use of the users and organizations. */
export { findOrganizationId, findUserById, findUserContact, organizationContact } from './user-queries.js';
