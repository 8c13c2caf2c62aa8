/** What other modules use of the voice templates. */
export { BUILTIN_TEMPLATES } from './builtin-templates.js';
export { voiceTemplatesRoutes } from './voice-templates-routes.js';
export { type VoiceTemplateRow, VoiceTemplatesService } from './voice-templates-service.js';
export { NEVER_SAID, renderScript, VOICE_VARIABLES, type VoiceVariables } from './voice-variables.js';
