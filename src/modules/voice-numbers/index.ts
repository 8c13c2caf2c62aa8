/** What other modules use of the organizations' voice numbers. */
export { organizationOfNumber, outboundNumberId, VoiceNumbersService } from './voice-numbers-service.js';
export { voiceNumbersRoutes } from './voice-numbers-routes.js';
