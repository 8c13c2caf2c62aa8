import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, type Schemas, unwrap } from './client';
import type { paths } from './envoy-api';
import { ApiError, apiErrorOf } from './errors';
import { keys } from './keys';

export type ResultRow = Schemas['AgentResultRow'];
export type ResultsQuery = NonNullable<paths['/api/v1/agent/results']['get']['parameters']['query']>;
export type GroupBy = NonNullable<ResultsQuery['group_by']>;

/** The agent's figures over [from, to), grouped; the same rows as the CSV export. */
export const useAgentResults = (query: ResultsQuery) =>
  useQuery({
    queryKey: keys.results(query),
    queryFn: async () => {
      const answer = await unwrap(
        api.GET('/api/v1/agent/results', { params: { query }, headers: { accept: 'application/json' } }),
      );
      // Asked for JSON: the CSV text of the same answer is for resultsCsv.
      if (typeof answer === 'string') throw new ApiError(406, 'not_json', 'The results came back as text');
      return answer;
    },
    placeholderData: keepPreviousData,
    // A thousand rows are replaced whole: comparing them with the last answer is work for nothing.
    structuralSharing: false,
  });

/** The same figures as CSV (`Accept: text/csv`), as a file the browser saves. */
export async function resultsCsv(query: ResultsQuery): Promise<Blob> {
  const { data, error, response } = await api.GET('/api/v1/agent/results', {
    params: { query },
    headers: { accept: 'text/csv' },
    parseAs: 'blob',
  });
  if (!response.ok || !data) throw apiErrorOf(response, error);
  return data;
}
