import { and, count, desc, eq, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { type LaggedReads, onPrimary } from '../../db/replicas.js';
import { notFound } from '../../domain/errors.js';
import { offsetOf, pagination } from '../../domain/pagination.js';
import type { OrgScope } from '../../domain/scope.js';
import { defined } from '../../lib/defined.js';
import type { CallStarter } from './call-starter.js';
import { elpTests } from './elp-tables.js';
import { type ElpRow, elpTestViews, findElpTestDetail } from './elp-view.js';

export class ElpService {
  constructor(
    private readonly db: Db,
    private readonly calls: CallStarter,
    private readonly reads: LaggedReads = onPrimary(db),
  ) {}

  /** Starts an ELP test: an ELP call to the driver, with its test REQUESTED. */
  async start(
    scope: OrgScope,
    input: {
      phone_number: string;
      driver_name?: string | null;
      carrier_id?: string | null;
      mc_number?: string | null;
    },
  ) {
    const call = await this.calls.create(
      scope,
      { phone_number: input.phone_number, call_type: 'ELP' },
      input,
    );
    const [test] = await this.db.select().from(elpTests).where(eq(elpTests.call_id, call.id));
    return this.view(scope, defined(test, 'test'));
  }

  async get(scope: OrgScope, id: string) {
    const detail = await findElpTestDetail(this.db, scope, id);
    if (!detail) throw notFound('ELP test', id, 'elp_test_id');
    return detail;
  }

  async list(
    scope: OrgScope,
    q: { page: number; page_size: number; phone_number?: string; mc_number?: string; call_id?: string },
  ) {
    const conditions: SQL[] = [eq(elpTests.organization_id, scope.organizationId)];
    if (q.phone_number) conditions.push(eq(elpTests.phone_number, q.phone_number));
    if (q.mc_number) conditions.push(eq(elpTests.mc_number, q.mc_number));
    if (q.call_id) conditions.push(eq(elpTests.call_id, q.call_id));
    const where = and(...conditions);
    const [rows, [total]] = await this.reads.read(scope, (db) =>
      Promise.all([
        db
          .select()
          .from(elpTests)
          .where(where)
          .orderBy(desc(elpTests.created_at), desc(elpTests.id))
          .limit(q.page_size)
          .offset(offsetOf(q.page, q.page_size)),
        db.select({ n: count() }).from(elpTests).where(where),
      ]),
    );
    return {
      data: await elpTestViews(this.db, scope, rows),
      pagination: pagination(q.page, q.page_size, total?.n ?? 0),
    };
  }

  private async view(scope: OrgScope, row: ElpRow) {
    const [view] = await elpTestViews(this.db, scope, [row]);
    return defined(view, 'view');
  }
}
