// Reports (/reports): the executive overview (GET /v1/reports/executive),
// each figure beside the same figure for the period before, with the
// sources, attackers and targets; every report as CSV over the same period;
// and the snapshots taken, each as CSV.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, ApiError, download } from '../api.ts';
import { navigate, place, withParams } from '../router.ts';
import { Time } from '../time.tsx';
import { ErrorLine } from '../messages.tsx';

const PERIODS = [
  { key: '7d', label: 'Last 7 days', days: 7 },
  { key: '30d', label: 'Last 30 days', days: 30 },
  { key: '90d', label: 'Last 90 days', days: 90 },
] as const;

const REPORTS = [
  { type: 'executive', label: 'Executive overview' },
  { type: 'compliance', label: 'Compliance, per framework' },
  { type: 'tool-effectiveness', label: 'Tool effectiveness' },
  { type: 'cost-savings', label: 'Cost and savings' },
] as const;

interface Compared {
  current: number | null;
  previous: number | null;
}

interface Period {
  start: string;
  end: string;
}

interface Executive {
  period: Period;
  previous_period: Period;
  incidents: Compared;
  by_severity: Record<string, Compared>;
  by_status: Record<string, Compared>;
  true_positives: Compared;
  false_positives: Compared;
  precision: Compared;
  time_to_detect_seconds: { mean: Compared; p90: Compared };
  time_to_resolve_seconds: { mean: Compared; p90: Compared };
  artifacts_by_source: Array<{ source: string; current: number; previous: number }>;
  top_attacking_addresses: Array<{ value: string; node_id: string; incidents: number; previous_incidents: number }>;
  most_targeted_nodes: Array<{ type: string; value: string; node_id: string; incidents: number; previous_incidents: number }>;
}

interface Snapshot {
  id: string;
  type: string;
  period_start: string;
  period_end: string;
  trigger: string;
  created_by: string;
  created_at: string;
}

type Format = (value: number) => string;
const count: Format = (v) => v.toLocaleString();
const share: Format = (v) => `${(v * 100).toFixed(1)}%`;
/** Seconds as the largest unit that keeps the figure readable. */
const duration: Format = (s) => (s < 120 ? `${Math.round(s)} s` : s < 7200 ? `${(s / 60).toFixed(1)} min` : s < 172_800 ? `${(s / 3600).toFixed(1)} h` : `${(s / 86_400).toFixed(1)} d`);

/** How a figure moved, in words a screen reader reads too. */
function change(c: Compared): string {
  if (c.current === null || c.previous === null) return '';
  if (c.current === c.previous) return 'no change';
  return c.current > c.previous ? 'up' : 'down';
}

function Figure({ label, value, format = count }: { label: string; value: Compared; format?: Format }) {
  const moved = change(value);
  return (
    <div>
      <dt>{label}</dt>
      <dd>
        {value.current === null ? '–' : format(value.current)}
        <span class="previous">
          previous {value.previous === null ? '–' : format(value.previous)}
          {moved && moved !== 'no change' ? `, ${moved}` : ''}
        </span>
      </dd>
    </div>
  );
}

/** Current beside previous as two bars, for the rows of a comparison table. */
function Bars({ current, previous, max }: { current: number; previous: number; max: number }) {
  const scale = (v: number) => (max > 0 ? (v / max) * 100 : 0);
  return (
    <svg class="chart" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">
      <rect class="bar" x="0" y="0.5" height="4" width={scale(current)} />
      <rect class="bar previous-bar" x="0" y="5.5" height="4" width={scale(previous)} />
    </svg>
  );
}

export function ReportsPage() {
  const key = place.value.params.get('period') ?? '30d';
  const period = PERIODS.find((p) => p.key === key) ?? PERIODS[1];
  const report = useSignal<Executive | null>(null);
  const snapshots = useSignal<Snapshot[] | null>(null);
  const error = useSignal<string | null>(null);
  const notice = useSignal<string | null>(null);
  // The period is fixed when the page asks, so the CSV downloads cover exactly what is shown.
  const bounds = useSignal<Period | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    const end = new Date();
    const range = { start: new Date(end.getTime() - period.days * 86_400_000).toISOString(), end: end.toISOString() };
    bounds.value = range;
    report.value = null;
    api<Executive>('GET', '/v1/reports/executive', { query: range, signal: controller.signal })
      .then(({ data }) => {
        report.value = data;
        error.value = null;
      })
      .catch((err: unknown) => {
        if (!controller.signal.aborted) error.value = err instanceof ApiError ? err.message : String(err);
      });
    api<{ snapshots: Snapshot[] }>('GET', '/v1/reports/snapshots', { query: { limit: 20 }, signal: controller.signal })
      .then(({ data }) => (snapshots.value = data.snapshots))
      .catch(() => undefined);
    return () => controller.abort();
  }, [period.key]);

  async function save(path: string, query: { start?: string; end?: string }) {
    try {
      notice.value = `Saved as ${await download(path, { ...query, format: 'csv' })}`;
    } catch (err) {
      error.value = err instanceof ApiError ? err.message : String(err);
    }
  }

  const r = report.value;
  const maxSource = r ? Math.max(0, ...r.artifacts_by_source.flatMap((s) => [s.current, s.previous])) : 0;
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Executive overview</h1>
      <form class="filters" aria-label="Report period" onSubmit={(e) => e.preventDefault()}>
        <label for="report-period">Period</label>
        <select id="report-period" value={period.key} onChange={(e) => navigate(withParams('/reports', { period: e.currentTarget.value === '30d' ? '' : e.currentTarget.value }))}>
          {PERIODS.map((p) => (
            <option key={p.key} value={p.key}>
              {p.label}
            </option>
          ))}
        </select>
        <button type="button" disabled={!bounds.value} onClick={() => void save('/v1/reports/executive', bounds.value!)}>
          Download CSV
        </button>
        {notice.value && (
          <span role="status" class="notice">
            {notice.value}
          </span>
        )}
      </form>
      <ErrorLine message={error.value} />
      {!r && !error.value && <p role="status">Loading…</p>}
      {r && (
        <>
          <p class="status">
            <Time iso={r.period.start} /> to <Time iso={r.period.end} />, beside <Time iso={r.previous_period.start} /> to <Time iso={r.previous_period.end} />
          </p>
          <h2 id="incidents-title">Incidents</h2>
          <dl class="figures" aria-labelledby="incidents-title">
            <Figure label="Opened" value={r.incidents} />
            <Figure label="True positives" value={r.true_positives} />
            <Figure label="False positives" value={r.false_positives} />
            <Figure label="Precision" value={r.precision} format={share} />
            <Figure label="Time to detect, mean" value={r.time_to_detect_seconds.mean} format={duration} />
            <Figure label="Time to detect, p90" value={r.time_to_detect_seconds.p90} format={duration} />
            <Figure label="Time to resolve, mean" value={r.time_to_resolve_seconds.mean} format={duration} />
            <Figure label="Time to resolve, p90" value={r.time_to_resolve_seconds.p90} format={duration} />
          </dl>
          <div class="report-columns">
            <CompareTable caption="Incidents by severity" rows={Object.entries(r.by_severity).map(([name, c]) => ({ name, ...c }))} />
            <CompareTable caption="Incidents by status" rows={Object.entries(r.by_status).map(([name, c]) => ({ name, ...c }))} />
          </div>
          <h2>Artifacts by source</h2>
          <table>
            <caption class="visually-hidden">Artifacts by source, this period beside the previous</caption>
            <thead>
              <tr>
                <th scope="col">Source</th>
                <th scope="col" class="number">This period</th>
                <th scope="col" class="number">Previous</th>
                <th scope="col">
                  <span class="legend-current">This period</span> <span class="legend-previous">previous</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {r.artifacts_by_source.map((s) => (
                <tr key={s.source}>
                  <th scope="row">{s.source}</th>
                  <td class="number">{s.current.toLocaleString()}</td>
                  <td class="number">{s.previous.toLocaleString()}</td>
                  <td class="bars">
                    <Bars current={s.current} previous={s.previous} max={maxSource} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <div class="report-columns">
            <NodeTable caption="Top attacking addresses" rows={r.top_attacking_addresses.map((a) => ({ ...a, type: 'IP' }))} />
            <NodeTable caption="Most targeted nodes" rows={r.most_targeted_nodes} />
          </div>
        </>
      )}
      <h2>Every report as CSV</h2>
      <ul class="plain-list downloads">
        {REPORTS.map((report) => (
          <li key={report.type}>
            <button type="button" class="secondary" disabled={!bounds.value} onClick={() => void save(`/v1/reports/${report.type}`, bounds.value!)}>
              {report.label} (CSV)
            </button>
          </li>
        ))}
      </ul>
      <h2>Snapshots</h2>
      {snapshots.value && snapshots.value.length === 0 && <p class="empty">No snapshots yet: one is taken daily (CAIRN_REPORT_SNAPSHOTS), or with POST /api/v1/reports/snapshots.</p>}
      {snapshots.value && snapshots.value.length > 0 && (
        <table>
          <caption class="visually-hidden">Report snapshots, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Report</th>
              <th scope="col">Period</th>
              <th scope="col">Taken</th>
              <th scope="col">CSV</th>
            </tr>
          </thead>
          <tbody>
            {snapshots.value.map((s) => (
              <tr key={s.id}>
                <td>{REPORTS.find((x) => x.type === s.type)?.label ?? s.type}</td>
                <td>
                  <Time iso={s.period_start} /> to <Time iso={s.period_end} />
                </td>
                <td>
                  <Time iso={s.created_at} /> ({s.trigger}, {s.created_by})
                </td>
                <td>
                  <button type="button" class="secondary" onClick={() => void save(`/v1/reports/snapshots/${s.id}`, {})} aria-label={`Download snapshot of ${s.created_at} as CSV`}>
                    Download
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function CompareTable({ caption, rows }: { caption: string; rows: Array<{ name: string } & Compared> }) {
  return (
    <table>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{caption.replace('Incidents by ', '').replace(/^./, (c) => c.toUpperCase())}</th>
          <th scope="col" class="number">This period</th>
          <th scope="col" class="number">Previous</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.name}>
            <th scope="row">{row.name}</th>
            <td class="number">{row.current ?? '–'}</td>
            <td class="number">{row.previous ?? '–'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function NodeTable({ caption, rows }: { caption: string; rows: Array<{ type: string; value: string; node_id: string; incidents: number; previous_incidents: number }> }) {
  return (
    <div>
      <h2>{caption}</h2>
      {rows.length === 0 ? (
        <p class="empty">None in this period.</p>
      ) : (
        <table>
          <caption class="visually-hidden">{caption}, by incidents this period</caption>
          <thead>
            <tr>
              <th scope="col">Node</th>
              <th scope="col" class="number">Incidents</th>
              <th scope="col" class="number">Previous</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.node_id}>
                <th scope="row">
                  <span class="node-type">{row.type}</span> <a href={`/nodes/${encodeURIComponent(row.node_id)}`}>{row.value}</a>
                </th>
                <td class="number">{row.incidents}</td>
                <td class="number">{row.previous_incidents}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
