/**
 * Every query key of the console, in one place: screens read through them, mutations and the
 * event stream invalidate exactly these.
 */
export const keys = {
  me: ['me'] as const,
  loads: ['loads'] as const,
  loadList: (query: object) => ['loads', 'list', query] as const,
  loadStats: (query: object) => ['loads', 'stats', query] as const,
  load: (id: string) => ['load', id] as const,
  loadPart: (id: string, part: 'offers' | 'activity' | 'calls' | 'outreaches') => ['load', id, part] as const,
  messages: (outreachId: string) => ['messages', outreachId] as const,
  views: ['load-views'] as const,
  reviews: ['reviews'] as const,
  results: (query: object) => ['results', query] as const,
  carriers: ['carriers'] as const,
  carrierList: (query: object) => ['carriers', 'list', query] as const,
  carrier: (id: string) => ['carrier', id] as const,
  carrierPart: (id: string, part: 'checks' | 'audit' | 'lanes' | 'offers' | 'outreaches') =>
    ['carrier', id, part] as const,
  calls: ['calls'] as const,
  callList: (query: object) => ['calls', 'list', query] as const,
  call: (id: string) => ['call', id] as const,
  elpTests: ['elp'] as const,
  elpList: (query: object) => ['elp', 'list', query] as const,
  elpTest: (id: string) => ['elp', 'one', id] as const,
  agentSettings: ['settings', 'agent'] as const,
  vettingPolicy: ['settings', 'vetting'] as const,
  team: ['settings', 'team'] as const,
  apiKeys: ['settings', 'api-keys'] as const,
  endpoints: ['settings', 'webhooks', 'endpoints'] as const,
  deliveries: (query: object) => ['settings', 'webhooks', 'deliveries', query] as const,
  deliveriesAll: ['settings', 'webhooks', 'deliveries'] as const,
  attempts: (endpointId: string) => ['settings', 'webhooks', 'attempts', endpointId] as const,
  eventTypes: ['settings', 'webhooks', 'event-types'] as const,
  voiceNumbers: ['settings', 'voice-numbers'] as const,
  voiceTemplates: ['settings', 'voice-templates'] as const,
  statusMappings: ['settings', 'status-mappings'] as const,
};
