/** What other modules use of the agent's results: nothing yet; the app registers its routes. */
export { agentResultsRoutes } from './results-routes.js';
export { AgentResultsService } from './results-service.js';
