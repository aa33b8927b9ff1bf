// POST /v1/sql: one read-only query as `cairn sql` runs it (clickhouse/read-only-sql.ts),
// for that command while a running cairn holds the embedded store (docs/reporting.md).
// It reads the whole store, every organization's rows and cairn's own tables, as
// `cairn sql` on the data dir does: admin only. Reporting tools use the ClickHouse
// HTTP interface (api/clickhouse-http), limited to the caller's organization.
import { z } from 'zod';
import { missingViewHint, oneLine, readOnlyStatement, RefusedQuery, runReadOnlyQuery } from '../../clickhouse/read-only-sql.js';
import { HttpError } from '../http-error.js';
import { defineRoute } from '../route.js';

const SqlBody = z.object({
  query: z.string().min(1, 'query is required').max(1_000_000),
  limit: z.number().int().min(1).max(1_000_000).default(1000).describe('at most this many rows; `cut` says whether there were more'),
});

const SqlAnswer = z.object({
  names: z.array(z.string()),
  types: z.array(z.string()).describe('ClickHouse types of the columns'),
  rows: z.array(z.array(z.unknown())).describe('one array of values per row; 64-bit integers as strings'),
  cut: z.boolean().describe('more rows than `limit` came back'),
});

export const sqlRoutes = [
  defineRoute({
    method: 'post',
    path: '/v1/sql',
    summary: 'Run one read-only query on the store, as `cairn sql` does (the command uses this route while cairn runs)',
    description:
      'Only SELECT, WITH, SHOW, DESCRIBE and EXPLAIN run, one statement, without FORMAT or INTO OUTFILE (400 `refused_query`), with the engine\'s readonly = 1. ' +
      'A query the engine refuses is 422 `query_failed` with its message and `details.clickhouse_code`. Reads every organization and every table: admin only. ' +
      'For reporting tools, see the ClickHouse HTTP interface (docs/reporting.md).',
    tag: 'Reporting',
    permission: 'admin',
    audit: false,
    body: SqlBody,
    response: SqlAnswer,
    errors: [422],
    async handler({ body, deps }) {
      try {
        const result = await runReadOnlyQuery(deps.store, readOnlyStatement(body.query), body.limit);
        return { message: `${result.rows.length} row(s)${result.cut ? ', more were cut' : ''}`, data: result };
      } catch (err) {
        if (err instanceof RefusedQuery) throw new HttpError(400, 'refused_query', err.message);
        const code = (err as { code?: unknown }).code;
        if (code === undefined) throw err;
        throw new HttpError(422, 'query_failed', `${oneLine(err)}${missingViewHint(err)}`, { clickhouse_code: String(code) });
      }
    },
  }),
];
