// Incidents, filtered by status and severity, in the order chosen (all kept in the URL), paged.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { can } from '../session.ts';
import { navigate, place, withParams } from '../router.ts';
import { Time } from '../time.tsx';
import { PageLink } from '../page-link.tsx';
import { moveInRows } from '../list-keys.ts';
import { SeverityAndOrder } from '../list-filters.tsx';
import { sortFrom } from '../list-sort.ts';
import { ErrorLine } from '../messages.tsx';

export const STATUSES: ReadonlyArray<{ value: number; name: string }> = [
  { value: 1, name: 'New' },
  { value: 2, name: 'Investigating' },
  { value: 3, name: 'Resolved' },
  { value: 4, name: 'Closed' },
  { value: 5, name: 'Disrupted' },
];
const PAGE_SIZE = 50;
/** New incidents show without a reload: the list is asked again this often while the page is visible. */
const REFRESH_MS = 10_000;

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
  const sort = sortFrom(params);
  const offset = Math.max(0, Number(params.get('offset') ?? 0) || 0);
  const list = useSignal<{ incidents: Incident[]; total: number } | null>(null);
  const error = useSignal<string | null>(null);
  const selected = useSignal<ReadonlySet<string>>(new Set());
  const bulkStatus = useSignal('2');
  const bulkResult = useSignal<{ ok: boolean; text: string } | null>(null);
  const version = useSignal(0);
  const writable = can('incidents:write');

  useEffect(() => {
    const controller = new AbortController();
    const load = () =>
      api<{ incidents: Incident[]; total: number }>('GET', '/v1/incidents', { query: { status, severity, sort: sort.key, limit: PAGE_SIZE, offset }, signal: controller.signal })
        .then(({ data }) => {
          list.value = data;
          error.value = null;
        })
        .catch((err: unknown) => {
          if (!controller.signal.aborted) error.value = err instanceof ApiError ? err.message : String(err);
        });
    void load();
    const timer = setInterval(() => document.visibilityState === 'visible' && void load(), REFRESH_MS);
    return () => {
      clearInterval(timer);
      controller.abort();
    };
  }, [status, severity, sort.key, offset, version.value]);

  function toggle(id: string, on: boolean) {
    const next = new Set(selected.value);
    if (on) next.add(id);
    else next.delete(id);
    selected.value = next;
  }

  async function applyBulk(event: Event) {
    event.preventDefault();
    const ids = [...selected.value];
    const name = STATUSES.find((s) => String(s.value) === bulkStatus.value)?.name;
    let done = 0;
    try {
      for (const id of ids) {
        await api('PUT', `/v1/incidents/${encodeURIComponent(id)}/status`, { body: { status: Number(bulkStatus.value) } });
        done += 1;
      }
      bulkResult.value = { ok: true, text: `Set ${done} incident${done === 1 ? '' : 's'} to ${name}` };
      selected.value = new Set();
    } catch (err) {
      bulkResult.value = { ok: false, text: `Set ${done} of ${ids.length}, then: ${err instanceof ApiError ? err.message : String(err)}` };
    }
    version.value += 1;
  }

  const urlWith = (change: Record<string, string | number>) => withParams('/incidents', { status, severity, sort: sort.key === 'newest' ? '' : sort.key, offset: '', ...change });
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
        <SeverityAndOrder severity={severity} sortKey={sort.key} change={(params) => navigate(urlWith(params))} />
      </form>
      <ErrorLine message={error.value} />
      <p role="status" class="status">
        {data ? `${data.total.toLocaleString()} incident${data.total === 1 ? '' : 's'}` : 'Loading…'}
      </p>
      {writable && data && data.incidents.length > 0 && (
        <form class="bulk" onSubmit={applyBulk} aria-label="Change the status of the selected incidents">
          <span>{selected.value.size} selected</span>
          <label for="bulk-status">Set status of selected to</label>
          <select id="bulk-status" value={bulkStatus.value} onChange={(e) => (bulkStatus.value = e.currentTarget.value)}>
            {STATUSES.map((s) => (
              <option key={s.value} value={String(s.value)}>
                {s.name}
              </option>
            ))}
          </select>
          <button type="submit" disabled={selected.value.size === 0}>
            Apply to selected
          </button>
          {bulkResult.value && (
            <p class={bulkResult.value.ok ? 'notice' : 'error'} role={bulkResult.value.ok ? 'status' : 'alert'}>
              {bulkResult.value.text}
            </p>
          )}
        </form>
      )}
      {data && data.incidents.length === 0 && <p class="empty">No incidents match these filters.</p>}
      {data && data.incidents.length > 0 && (
        <>
          <table class="incidents">
            <caption class="visually-hidden">Incidents, {sort.caption}</caption>
            <thead>
              <tr>
                {writable && (
                  <th scope="col">
                    <input
                      type="checkbox"
                      aria-label="Select every incident on this page"
                      checked={data.incidents.every((i) => selected.value.has(i.id))}
                      onChange={(e) => (selected.value = e.currentTarget.checked ? new Set(data.incidents.map((i) => i.id)) : new Set())}
                    />
                  </th>
                )}
                <th scope="col">Title</th>
                <th scope="col">Severity</th>
                <th scope="col">Status</th>
                <th scope="col">Size</th>
                <th scope="col">First seen</th>
                <th scope="col">Last seen</th>
              </tr>
            </thead>
            <tbody onKeyDown={moveInRows}>
              {data.incidents.map((incident) => (
                <tr key={incident.id}>
                  {writable && (
                    <td>
                      <input type="checkbox" aria-label={`Select ${incident.title}`} checked={selected.value.has(incident.id)} onChange={(e) => toggle(incident.id, e.currentTarget.checked)} />
                    </td>
                  )}
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
