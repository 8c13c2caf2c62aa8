import type { Config } from '../../config.js';
import type { ComplianceProvider } from './compliance-provider.js';
import { FmcsaProvider } from './fmcsa-provider.js';
import { RegistryProvider } from './registry-provider.js';

export function complianceProviderFrom(config: Config['compliance']): ComplianceProvider {
  if (config.provider === 'fmcsa') return new FmcsaProvider(config.fmcsaBaseUrl, config.fmcsaWebKey!);
  return new RegistryProvider(config.registryFile);
}
