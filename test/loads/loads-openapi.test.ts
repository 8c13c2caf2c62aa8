import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';

describe('loads in OpenAPI', () => {
  const t = useTestApp();

  it('documents every list parameter, the credentials, and Idempotency-Key on the upserts', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    const list = doc.paths['/api/v1/loads'].get;
    const names = list.parameters.map((p: { name: string }) => p.name);
    for (const name of [
      'page',
      'page_size',
      'search',
      'status',
      'tms_status',
      'carrier_rep_name',
      'tab',
      'view_id',
      'order_by',
      'last_posted_at_to',
    ]) {
      expect(names, name).toContain(name);
    }
    expect(list.security).toEqual([{ apiKey: [] }, { bearer: [] }]);
    for (const path of ['/api/v1/loads', '/api/v1/loads/batch']) {
      const params = doc.paths[path].post.parameters.map((p: { name: string }) => p.name);
      expect(params, path).toContain('idempotency-key');
    }
    expect(Object.keys(doc.paths['/api/v1/loads/batch'].post.responses)).toEqual(
      expect.arrayContaining(['200', '207', '422']),
    );
    expect(doc.paths['/api/v1/load-views/{view_id}'].patch).toBeDefined();
  });
});
