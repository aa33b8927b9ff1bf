// Report snapshots: the list (newest first, paged), and one opened, its
// report drawn by the same views as a live report, as it was when taken.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, ApiError } from '../../api.ts';
import { ErrorLine, NoticeLine } from '../../messages.tsx';
import { PageLink } from '../../page-link.tsx';
import { withParams } from '../../router.ts';
import { Time } from '../../time.tsx';
import { saveCsv } from './download.ts';
import { ReportTable, type Column } from './report-table.tsx';
import { ReportView } from './report-view.tsx';
import { REPORT_LABELS, tagged, type Snapshot, type SnapshotSummary } from './types.ts';

const PAGE_SIZE = 20;
/** The framework names of framework_id (docs/reports.md), for a compliance snapshot taken for one. */
const FRAMEWORKS: Record<number, string> = { 1: 'PCI DSS', 2: 'HIPAA', 3: 'SOC 2', 4: 'ISO/IEC 27001', 5: 'NIST SP 800-53', 6: 'GDPR', 7: 'NIS2', 8: 'CIS Controls' };

export const snapshotPath = (id: string) => withParams('/reports', { snapshot: id });
const csvPath = (id: string) => `/v1/reports/snapshots/${encodeURIComponent(id)}`;
const messageOf = (err: unknown) => (err instanceof ApiError ? err.message : String(err));

export function SnapshotList({ offset }: { offset: number }) {
  const snapshots = useSignal<{ snapshots: SnapshotSummary[]; total: number } | null>(null);
  const error = useSignal<string | null>(null);
  const notice = useSignal<string | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    api<{ snapshots: SnapshotSummary[]; total: number }>('GET', '/v1/reports/snapshots', { query: { limit: PAGE_SIZE, offset }, signal: controller.signal })
      .then(({ data }) => {
        snapshots.value = data;
        error.value = null;
      })
      .catch((err: unknown) => {
        if (!controller.signal.aborted) error.value = messageOf(err);
      });
    return () => controller.abort();
  }, [offset]);

  const columns: Column<SnapshotSummary>[] = [
    {
      label: 'Taken',
      cell: (s) => (
        <a href={snapshotPath(s.id)} aria-label={`Open the ${REPORT_LABELS[s.type].toLowerCase()} snapshot taken ${new Date(s.created_at).toLocaleString()}`}>
          <Time iso={s.created_at} />
        </a>
      ),
    },
    { label: 'Report', cell: (s) => REPORT_LABELS[s.type] ?? s.type },
    {
      label: 'Period',
      cell: (s) => (
        <>
          <Time iso={s.period_start} /> to <Time iso={s.period_end} />
        </>
      ),
    },
    { label: 'How', cell: (s) => (s.trigger === 'schedule' ? 'daily schedule' : `by ${s.created_by}`) },
    {
      label: 'CSV',
      cell: (s) => (
        <button type="button" class="secondary" onClick={() => void saveCsv(csvPath(s.id), {}, { notice, error })} aria-label={`Download snapshot of ${s.created_at} as CSV`}>
          Download
        </button>
      ),
    },
  ];
  const list = snapshots.value;
  return (
    <>
      <ErrorLine message={error.value} />
      <NoticeLine message={notice.value} />
      {!list && !error.value && <p role="status">Loading…</p>}
      {list && (
        <>
          <ReportTable
            caption="Report snapshots, newest first"
            columns={columns}
            rows={list.snapshots}
            rowKey={(s) => s.id}
            empty="none yet. One is taken daily (CAIRN_REPORT_SNAPSHOTS), or with POST /api/v1/reports/snapshots."
          />
          {list.total > PAGE_SIZE && (
            <nav class="row" aria-label="Snapshot pages">
              <PageLink href={withParams('/reports', { report: 'snapshots', offset: Math.max(0, offset - PAGE_SIZE) || undefined })} enabled={offset > 0} label="Newer" />
              <span class="status">
                {offset + 1}–{Math.min(offset + PAGE_SIZE, list.total)} of {list.total}
              </span>
              <PageLink href={withParams('/reports', { report: 'snapshots', offset: offset + PAGE_SIZE })} enabled={offset + PAGE_SIZE < list.total} label="Older" />
            </nav>
          )}
        </>
      )}
    </>
  );
}

export function SnapshotPage({ id }: { id: string }) {
  const snapshot = useSignal<Snapshot | null>(null);
  const error = useSignal<string | null>(null);
  const notice = useSignal<string | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    snapshot.value = null;
    api<Snapshot>('GET', csvPath(id), { signal: controller.signal })
      .then(({ data }) => {
        snapshot.value = data;
        error.value = null;
      })
      .catch((err: unknown) => {
        if (!controller.signal.aborted) error.value = messageOf(err);
      });
    return () => controller.abort();
  }, [id]);

  const s = snapshot.value;
  const framework = s?.parameters.framework_id;
  return (
    <>
      <p>
        <a href={withParams('/reports', { report: 'snapshots' })}>All snapshots</a>
      </p>
      <ErrorLine message={error.value} />
      <NoticeLine message={notice.value} />
      {!s && !error.value && <p role="status">Loading…</p>}
      {s && (
        <>
          <dl class="figures" aria-label="This snapshot">
            <div>
              <dt>Report</dt>
              <dd>{REPORT_LABELS[s.type] ?? s.type}</dd>
            </div>
            {framework !== undefined && (
              <div>
                <dt>Framework</dt>
                <dd>{FRAMEWORKS[framework] ?? framework}</dd>
              </div>
            )}
            <div>
              <dt>Taken</dt>
              <dd>
                <Time iso={s.created_at} />
                <span class="previous">{s.trigger === 'schedule' ? 'by the daily schedule' : `by ${s.created_by}`}</span>
              </dd>
            </div>
          </dl>
          <div class="row">
            <button type="button" onClick={() => void saveCsv(csvPath(s.id), {}, { notice, error })}>
              Download CSV
            </button>
          </div>
          <ReportView shown={tagged(s.type, s.report)} />
        </>
      )}
    </>
  );
}
