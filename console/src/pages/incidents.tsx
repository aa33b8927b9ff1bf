// Incidents, newest first, filtered by status and severity (kept in the URL), paged.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { navigate, place, withParams } from '../router.ts';
import { Time } from '../time.tsx';
import { PageLink } from './search.tsx';

export const STATUSES: ReadonlyArray<{ value: number; name: string }> = [
  { value: 1, name: 'New' },
  { value: 2, name: 'Investigating' },
  { value: 3, name: 'Resolved' },
  { value: 4, name: 'Closed' },
  { value: 5, name: 'Disrupted' },
];
const SEVERITIES = ['low', 'medium', 'high', 'critical'];
const PAGE_SIZE = 50;

export interface Incident {
  id: string;
  title: string;
  severity: string;
  status: number;
  status_name: string;
  artifact_count: number;
  node_count: number;
  first_seen: string;
  last_seen: string;
}

export function IncidentsPage() {
  const params = place.value.params;
  const status = params.get('status') ?? '';
  const severity = params.get('severity') ?? '';
  const offset = Math.max(0, Number(params.get('offset') ?? 0) || 0);
  const list = useSignal<{ incidents: Incident[]; total: number } | null>(null);
  const error = useSignal<string | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    error.value = null;
    api<{ incidents: Incident[]; total: number }>('GET', '/v1/incidents', { query: { status, severity, limit: PAGE_SIZE, offset }, signal: controller.signal })
      .then(({ data }) => (list.value = data))
      .catch((err: unknown) => {
        if (!controller.signal.aborted) error.value = err instanceof ApiError ? err.message : String(err);
      });
    return () => controller.abort();
  }, [status, severity, offset]);

  const urlWith = (change: Record<string, string | number>) => withParams('/incidents', { status, severity, offset: '', ...change });
  const data = list.value;
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Incidents</h1>
      <form class="filters" aria-label="Incident filters" onSubmit={(e) => e.preventDefault()}>
        <label for="status-filter">Status</label>
        <select id="status-filter" value={status} onChange={(e) => navigate(urlWith({ status: e.currentTarget.value }))}>
          <option value="">Any status</option>
          {STATUSES.map((s) => (
            <option key={s.value} value={String(s.value)}>
              {s.name}
            </option>
          ))}
        </select>
        <label for="severity-filter">Severity</label>
        <select id="severity-filter" value={severity} onChange={(e) => navigate(urlWith({ severity: e.currentTarget.value }))}>
          <option value="">Any severity</option>
          {SEVERITIES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </form>
      {error.value && (
        <p class="error" role="alert">
          {error.value}
        </p>
      )}
      <p role="status" class="status">
        {data ? `${data.total.toLocaleString()} incident${data.total === 1 ? '' : 's'}` : 'Loading…'}
      </p>
      {data && data.incidents.length === 0 && <p class="empty">No incidents match these filters.</p>}
      {data && data.incidents.length > 0 && (
        <>
          <table class="incidents">
            <caption class="visually-hidden">Incidents, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">Severity</th>
                <th scope="col">Status</th>
                <th scope="col">Size</th>
                <th scope="col">First seen</th>
                <th scope="col">Last seen</th>
              </tr>
            </thead>
            <tbody>
              {data.incidents.map((incident) => (
                <tr key={incident.id}>
                  <td>
                    <a href={`/incidents/${encodeURIComponent(incident.id)}`}>{incident.title}</a>
                  </td>
                  <td>
                    <span class={`severity severity-${incident.severity}`}>{incident.severity}</span>
                  </td>
                  <td>{incident.status_name}</td>
                  <td class="nowrap">
                    {incident.artifact_count} artifacts, {incident.node_count} nodes
                  </td>
                  <td class="nowrap">
                    <Time iso={incident.first_seen} />
                  </td>
                  <td class="nowrap">
                    <Time iso={incident.last_seen} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <nav class="pager" aria-label="Incident pages">
            <PageLink href={urlWith({ offset: Math.max(0, offset - PAGE_SIZE) })} enabled={offset > 0} label="Previous page" />
            <span>
              {offset + 1}–{offset + data.incidents.length} of {data.total.toLocaleString()}
            </span>
            <PageLink href={urlWith({ offset: offset + PAGE_SIZE })} enabled={offset + PAGE_SIZE < data.total} label="Next page" />
          </nav>
        </>
      )}
    </section>
  );
}
