import type { Config } from '../../config.js';
import type { Clock } from '../../lib/clock.js';
import type { WallClock } from '../../lib/wall-clock.js';
import type { SimulatedMarket } from '../simulation/market.js';
import { SimulatedVoiceProvider } from './simulated-provider.js';
import { VapiProvider } from './vapi-provider.js';
import type { VoiceProvider } from './voice-provider.js';

export const VOICE_EVENTS_PATH = '/api/v1/integrations/voice/events';

export function voiceProviderFrom(
  config: Config,
  clock: Clock,
  market: SimulatedMarket | null,
  wall: WallClock,
): VoiceProvider {
  const vapi = config.voice.vapi;
  if (config.voice.provider === 'vapi' && vapi && config.publicBaseUrl) {
    return new VapiProvider(
      {
        ...vapi,
        serverUrl: `${config.publicBaseUrl.replace(/\/$/, '')}${VOICE_EVENTS_PATH}`,
      },
      wall,
    );
  }
  return new SimulatedVoiceProvider(clock, market);
}
