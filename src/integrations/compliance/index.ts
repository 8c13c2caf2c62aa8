import type { Config } from '../../config.js';
import { defined } from '../../lib/defined.js';
import { machineWallClock, type WallClock } from '../../lib/wall-clock.js';
import type { ComplianceProvider } from './compliance-provider.js';
import { FmcsaProvider } from './fmcsa-provider.js';
import { RegistryProvider } from './registry-provider.js';

export function complianceProviderFrom(
  config: Config['compliance'],
  wall: WallClock = machineWallClock,
): ComplianceProvider {
  if (config.provider === 'fmcsa') {
    const f = config.fmcsa;
    return new FmcsaProvider({
      baseUrl: f.baseUrl,
      webKey: defined(f.webKey, 'f.webKey'),
      openData: {
        baseUrl: f.openDataUrl,
        censusDataset: f.censusDataset,
        authorityHistoryDataset: f.authorityHistoryDataset,
        legacyAuthorityHistoryDataset: f.legacyAuthorityHistoryDataset,
        insuranceDataset: f.insuranceDataset,
        insuranceHistoryDataset: f.insuranceHistoryDataset,
        legacyInsuranceDataset: f.legacyInsuranceDataset,
        outOfServiceDataset: f.outOfServiceDataset,
        appToken: f.openDataAppToken,
      },
      pacing: {
        minIntervalMs: f.minIntervalMs,
        maxRetries: f.maxRetries,
        retryBaseMs: f.retryBaseMs,
        timeoutMs: f.timeoutMs,
        cacheTtlMs: f.cacheTtlSeconds * 1000,
      },
      wall,
    });
  }
  return new RegistryProvider(config.registryFile);
}
