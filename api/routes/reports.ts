// Reports (SPEC 2.11, 4.10; docs/reports.md): executive, compliance, tool
// effectiveness, cost and savings over [start, end) (default the last 30
// days), as JSON or CSV; and snapshots, kept as they were when taken.
import { stringify } from 'csv-stringify/sync';
import { z } from 'zod';
import { getSnapshot, listSnapshots, type ReportSnapshot } from '../../clickhouse/tables/report-snapshots.js';
import { DEFAULT_PRICES, defaultPeriod, FRAMEWORKS, periodProblem, type Period, type Row } from '../../reports/reports.js';
import { REPORT_TYPES, runReport, takeSnapshot, type ReportParameters, type ReportType } from '../../reports/snapshots.js';
import type { AuthContext } from '../auth.js';
import type { ApiDeps } from '../deps.js';
import { badRequest, notFound } from '../http-error.js';
import { defineRoute, type FileBody, type Route } from '../route.js';
import { IdParams, listData, Pagination, Timestamp } from '../schemas.js';

const Format = z.enum(['json', 'csv'], { message: 'format must be json or csv' }).default('json');

const PeriodQuery = z
  .object({
    start: Timestamp.optional().describe('default: 30 days before end'),
    end: Timestamp.optional().describe('default: now'),
    format: Format,
  })
  .transform((q) => ({ format: q.format, period: defaultPeriod(q.start, q.end) }))
  .superRefine((q, ctx) => {
    const problem = periodProblem(q.period);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, path: ['start'] });
  });

const FrameworkId = z.coerce
  .number({ message: 'framework_id must be 1 to 8' })
  .int('framework_id must be 1 to 8')
  .min(1, 'framework_id must be 1 to 8')
  .max(8, 'framework_id must be 1 to 8')
  .describe(Object.entries(FRAMEWORKS).map(([id, name]) => `${id} ${name}`).join(', '));

const Price = (what: string, fallback: number) => z.coerce.number({ message: `${what} must be a number` }).min(0, `${what} must be 0 or more`).max(1_000_000).default(fallback);

const PriceQuery = z.object({
  ingest_price_per_gb: Price('ingest_price_per_gb', DEFAULT_PRICES.ingest_per_gb).describe(`cost of ingesting one GiB (default ${DEFAULT_PRICES.ingest_per_gb})`),
  storage_price_per_gb_month: Price('storage_price_per_gb_month', DEFAULT_PRICES.storage_per_gb_month).describe(`cost of storing one GiB for a month (default ${DEFAULT_PRICES.storage_per_gb_month})`),
  analyst_minutes_per_lead: Price('analyst_minutes_per_lead', DEFAULT_PRICES.analyst_minutes_per_lead).describe(`minutes an analyst spends triaging one lead alone (default ${DEFAULT_PRICES.analyst_minutes_per_lead})`),
  analyst_minutes_per_incident: Price('analyst_minutes_per_incident', DEFAULT_PRICES.analyst_minutes_per_incident).describe(`minutes to triage an incident (default ${DEFAULT_PRICES.analyst_minutes_per_incident})`),
  analyst_hourly_rate: Price('analyst_hourly_rate', DEFAULT_PRICES.analyst_hourly_rate).describe(`an analyst's hourly cost (default ${DEFAULT_PRICES.analyst_hourly_rate})`),
});

/** RFC 4180 CSV of a report's rows (csv-stringify quotes commas, quotes and line breaks). */
function csvFile(type: string, period: Period, rows: Row[]): FileBody {
  const body = stringify(rows, { header: true, columns: rows[0] ? Object.keys(rows[0]) : ['empty'], record_delimiter: '\r\n' });
  return { contentType: 'text/csv; charset=utf-8', body, filename: `cairn-${type}-${period.start.slice(0, 10)}-${period.end.slice(0, 10)}.csv` };
}

const ReportBody = z.record(z.string(), z.unknown()).describe('the report: fields in docs/reports.md');

function reportRoute(type: ReportType, summary: string, extraQuery: z.ZodObject | null, parameters: (query: Record<string, unknown>) => ReportParameters): Route {
  const query = extraQuery ? z.intersection(PeriodQuery, extraQuery) : PeriodQuery;
  return defineRoute({
    method: 'get',
    path: `/v1/reports/${type}`,
    summary,
    description: 'format=csv answers text/csv (a header row, RFC 4180 quoting) as an attachment; the fields of both are in docs/reports.md.',
    tag: 'Reports',
    permission: 'reports:read',
    query,
    response: ReportBody,
    fileTypes: ['text/csv'],
    async handler({ query: q, auth, deps }) {
      const { period, format } = q as { period: Period; format: 'json' | 'csv' };
      const { report, rows } = await runReport(contextOf(deps, auth), type, period, parameters(q as Record<string, unknown>));
      return { message: `${type} report, ${period.start} to ${period.end}`, data: report as Record<string, unknown>, ...(format === 'csv' ? { file: csvFile(type, period, rows) } : {}) };
    },
  });
}

const contextOf = (deps: ApiDeps, auth: AuthContext) => ({ store: deps.store, orgId: auth.orgId, scopes: deps.config.graph });

const SnapshotSchema = z.object({
  id: z.string(),
  type: z.enum(REPORT_TYPES),
  period_start: Timestamp,
  period_end: Timestamp,
  parameters: z.record(z.string(), z.unknown()),
  trigger: z.enum(['schedule', 'manual']).describe('schedule: the daily snapshot (CAIRN_REPORT_SNAPSHOTS); manual: POST /v1/reports/snapshots'),
  created_by: z.string(),
  created_at: Timestamp,
});

const present = ({ org_id: _org, report: _report, rows: _rows, ...snapshot }: ReportSnapshot) => ({ ...snapshot, type: snapshot.type as ReportType });

export const reportRoutes: Route[] = [
  reportRoute('executive', 'Executive report: incidents by severity and status, true/false positives and precision, time to detect and to resolve, artifacts by source, top attacking addresses and most targeted nodes; each beside the previous period', null, () => ({})),
  reportRoute('compliance', 'Compliance report per framework (framework_id 1-8, else one row per framework): in-scope nodes and their log coverage, incidents touching them, open ones older than 7 and 30 days', z.object({ framework_id: FrameworkId.optional() }), (q) => ({ framework_id: q.framework_id as number | undefined })),
  reportRoute('tool-effectiveness', 'Tool effectiveness per source and per lead rule: artifacts, parse rate, observations, leads, incidents, true/false positives, precision, time to detect; rules that never fired, sources without leads', null, () => ({})),
  reportRoute('cost-savings', 'Cost and savings: bytes ingested and stored per source and their cost, analyst cost per rule, cost per true positive, analyst time saved by correlation and by closing false positives', PriceQuery, (q) => ({
    prices: {
      ingest_per_gb: q.ingest_price_per_gb as number,
      storage_per_gb_month: q.storage_price_per_gb_month as number,
      analyst_minutes_per_lead: q.analyst_minutes_per_lead as number,
      analyst_minutes_per_incident: q.analyst_minutes_per_incident as number,
      analyst_hourly_rate: q.analyst_hourly_rate as number,
    },
  })),
  defineRoute({
    method: 'get',
    path: '/v1/reports/snapshots',
    summary: 'Stored report snapshots, newest first (type, period, parameters, when and how taken)',
    tag: 'Reports',
    permission: 'reports:read',
    query: Pagination.extend({ type: z.enum(REPORT_TYPES).optional() }),
    response: listData('snapshots', SnapshotSchema),
    async handler({ query, auth, deps }) {
      const { snapshots, total } = await listSnapshots(deps.store, auth.orgId, query);
      return { message: `${total} snapshot(s)`, data: { snapshots: snapshots.map(present), total, limit: query.limit, offset: query.offset } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/reports/snapshots/:id',
    summary: 'One snapshot as it was when taken (format json or csv), even after its data aged out (cairn extension)',
    tag: 'Reports',
    permission: 'reports:read',
    params: IdParams,
    query: z.object({ format: Format }),
    response: SnapshotSchema.extend({ report: ReportBody }),
    fileTypes: ['text/csv'],
    errors: [404],
    async handler({ params, query, auth, deps }) {
      const snapshot = await getSnapshot(deps.store, auth.orgId, params.id);
      if (!snapshot) throw notFound('report snapshot');
      const period = { start: snapshot.period_start, end: snapshot.period_end };
      return { message: `${snapshot.type} snapshot of ${snapshot.created_at}`, data: { ...present(snapshot), report: snapshot.report as Record<string, unknown> }, ...(query.format === 'csv' ? { file: csvFile(snapshot.type, period, snapshot.rows) } : {}) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/reports/snapshots',
    summary: 'Take a snapshot of a report now (cairn extension): type, and the period and parameters the report takes',
    tag: 'Reports',
    permission: 'reports:read',
    body: z.strictObject({
      type: z.enum(REPORT_TYPES, { message: `type must be one of: ${REPORT_TYPES.join(', ')}` }),
      start: Timestamp.optional(),
      end: Timestamp.optional(),
      framework_id: FrameworkId.optional(),
    }),
    response: SnapshotSchema,
    successStatus: 201,
    async handler({ body, auth, deps }) {
      const checked = PeriodQuery.safeParse({ start: body.start, end: body.end });
      if (!checked.success) throw badRequest(`invalid body: ${checked.error.issues[0]!.message}`);
      const { period } = checked.data;
      const snapshot = await takeSnapshot(contextOf(deps, auth), body.type, period, body.framework_id ? { framework_id: body.framework_id } : {}, { trigger: 'manual', createdBy: auth.email ?? auth.subject });
      return { message: 'Snapshot taken', data: present(snapshot) };
    },
  }),
];
