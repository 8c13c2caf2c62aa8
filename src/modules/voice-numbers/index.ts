/** What other modules use of the organizations' voice numbers. */

export { voiceNumbersRoutes } from './voice-numbers-routes.js';
export { organizationOfNumber, outboundNumberId, VoiceNumbersService } from './voice-numbers-service.js';
