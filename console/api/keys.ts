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
};
