// Reports (/reports): the executive overview, compliance per framework, tool
// effectiveness, and cost and savings (GET /v1/reports/<type>), each over the
// last 7, 30 or 90 days and downloadable as CSV for exactly the period shown;
// and the snapshots, listed and opened. The report, the period and the
// snapshot are in the URL (?report=compliance&period=7d, ?snapshot=<id>).
// The views are in ./reports/.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { ErrorLine, NoticeLine } from '../messages.tsx';
import { navigate, place, withParams } from '../router.ts';
import { saveCsv } from './reports/download.ts';
import { ReportView } from './reports/report-view.tsx';
import { SnapshotList, SnapshotPage } from './reports/snapshots.tsx';
import { REPORT_LABELS, REPORT_TYPES, tagged, type AnyReport, type Period, type ReportType } from './reports/types.ts';

const PERIODS = [
  { key: '7d', label: 'Last 7 days', days: 7 },
  { key: '30d', label: 'Last 30 days', days: 30 },
  { key: '90d', label: 'Last 90 days', days: 90 },
] as const;
const DEFAULT_PERIOD = '30d';

type Tab = ReportType | 'snapshots';
const TABS: ReadonlyArray<{ key: Tab; label: string }> = [...REPORT_TYPES.map((type) => ({ key: type, label: REPORT_LABELS[type] })), { key: 'snapshots', label: 'Snapshots' }];

/** The page for a tab and period, leaving the defaults out of the URL. */
const reportsPath = (tab: Tab, period: string) => withParams('/reports', { report: tab === 'executive' ? '' : tab, period: period === DEFAULT_PERIOD ? '' : period });

export function ReportsPage() {
  const { params } = place.value;
  const snapshotId = params.get('snapshot');
  const tab: Tab = snapshotId ? 'snapshots' : (TABS.find((t) => t.key === params.get('report'))?.key ?? 'executive');
  const period = PERIODS.find((p) => p.key === params.get('period')) ?? PERIODS.find((p) => p.key === DEFAULT_PERIOD)!;
  const title = snapshotId ? 'Report snapshot' : tab === 'snapshots' ? 'Report snapshots' : REPORT_LABELS[tab];
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">{title}</h1>
      <nav aria-label="Reports" class="tabs">
        {TABS.map((t) => (
          <a key={t.key} href={reportsPath(t.key, period.key)} aria-current={t.key === tab ? 'page' : undefined}>
            {t.label}
          </a>
        ))}
      </nav>
      {snapshotId ? <SnapshotPage id={snapshotId} /> : tab === 'snapshots' ? <SnapshotList offset={Math.max(0, Number(params.get('offset')) || 0)} /> : <LiveReport type={tab} period={period} />}
    </section>
  );
}

function LiveReport({ type, period }: { type: ReportType; period: (typeof PERIODS)[number] }) {
  const shown = useSignal<AnyReport | null>(null);
  const error = useSignal<string | null>(null);
  const notice = useSignal<string | null>(null);
  // The period is fixed when the page asks, so the CSV download covers exactly what is shown.
  const bounds = useSignal<Period | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    const end = new Date();
    const range = { start: new Date(end.getTime() - period.days * 86_400_000).toISOString(), end: end.toISOString() };
    bounds.value = range;
    shown.value = null;
    notice.value = null;
    api<unknown>('GET', `/v1/reports/${type}`, { query: range, signal: controller.signal })
      .then(({ data }) => {
        shown.value = tagged(type, data);
        error.value = null;
      })
      .catch((err: unknown) => {
        if (!controller.signal.aborted) error.value = err instanceof ApiError ? err.message : String(err);
      });
    return () => controller.abort();
  }, [type, period.key]);

  return (
    <>
      <form class="filters" aria-label="Report period" onSubmit={(e) => e.preventDefault()}>
        <label for="report-period">Period</label>
        <select id="report-period" value={period.key} onChange={(e) => navigate(reportsPath(type, e.currentTarget.value))}>
          {PERIODS.map((p) => (
            <option key={p.key} value={p.key}>
              {p.label}
            </option>
          ))}
        </select>
        <button type="button" disabled={!shown.value} onClick={() => void saveCsv(`/v1/reports/${type}`, { ...bounds.value! }, { notice, error })}>
          Download CSV
        </button>
      </form>
      <NoticeLine message={notice.value} />
      <ErrorLine message={error.value} />
      {shown.value?.type !== type && !error.value && <p role="status">Loading…</p>}
      {shown.value?.type === type && <ReportView shown={shown.value} />}
    </>
  );
}
