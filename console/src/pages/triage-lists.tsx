// Leads (/leads) and observations (/observations): the same severity filter
// and orders as the incidents list, kept in the URL, paged, arrow keys
// between rows. A lead links to its incident; an observation to its
// evidence in search.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { api, ApiError } from '../api.ts';
import { navigate, place, withParams } from '../router.ts';
import { Time } from '../time.tsx';
import { PageLink } from '../page-link.tsx';
import { moveInRows } from '../list-keys.ts';
import { SeverityBadge } from '../severity.tsx';
import { SeverityAndOrder } from '../list-filters.tsx';
import { sortFrom } from '../list-sort.ts';
import { evidenceHref } from '../evidence.tsx';
import { ErrorLine } from '../messages.tsx';

const PAGE_SIZE = 50;

interface Lead {
  id: string;
  rule_name: string;
  severity: string;
  group_by: string;
  group_value: string;
  event_count: number;
  source: string;
  first_seen: string;
  created_at: string;
  artifact_ids: string[];
  incident_id: string | null;
}

interface Observation {
  id: string;
  type: string;
  description: string;
  severity: string;
  artifact_ids: string[];
  created_by: string;
  created_at: string;
}

interface ListPageProps<T> {
  path: '/leads' | '/observations';
  title: string;
  noun: string;
  apiPath: string;
  field: 'leads' | 'observations';
  columns: string[];
  row: (item: T) => ComponentChildren;
}

function ListPage<T extends { id: string }>({ path, title, noun, apiPath, field, columns, row }: ListPageProps<T>) {
  const params = place.value.params;
  const severity = params.get('severity') ?? '';
  const sort = sortFrom(params);
  const offset = Math.max(0, Number(params.get('offset') ?? 0) || 0);
  const list = useSignal<{ items: T[]; total: number } | null>(null);
  const error = useSignal<string | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    api<Record<string, unknown>>('GET', apiPath, { query: { severity, sort: sort.key, limit: PAGE_SIZE, offset }, signal: controller.signal })
      .then(({ data }) => {
        list.value = { items: data[field] as T[], total: data.total as number };
        error.value = null;
      })
      .catch((err: unknown) => {
        if (!controller.signal.aborted) error.value = err instanceof ApiError ? err.message : String(err);
      });
    return () => controller.abort();
  }, [severity, sort.key, offset]);

  const urlWith = (change: Record<string, string | number>) => withParams(path, { severity, sort: sort.key === 'newest' ? '' : sort.key, offset: '', ...change });
  const data = list.value;
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">{title}</h1>
      <TriageTabs current={path} />
      <form class="filters" aria-label={`${title} filters`} onSubmit={(e) => e.preventDefault()}>
        <SeverityAndOrder severity={severity} sortKey={sort.key} change={(params) => navigate(urlWith(params))} />
      </form>
      <ErrorLine message={error.value} />
      <p role="status" class="status">
        {data ? `${data.total.toLocaleString()} ${noun}${data.total === 1 ? '' : 's'}` : 'Loading…'}
      </p>
      {data && data.items.length === 0 && <p class="empty">No {noun}s match these filters.</p>}
      {data && data.items.length > 0 && (
        <>
          <table class="incidents">
            <caption class="visually-hidden">
              {title}, {sort.caption}
            </caption>
            <thead>
              <tr>
                {columns.map((c) => (
                  <th key={c} scope="col">
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody onKeyDown={moveInRows}>
              {data.items.map((item) => (
                <tr key={item.id}>{row(item)}</tr>
              ))}
            </tbody>
          </table>
          <nav class="pager" aria-label={`${title} pages`}>
            <PageLink href={urlWith({ offset: Math.max(0, offset - PAGE_SIZE) })} enabled={offset > 0} label="Previous page" />
            <span>
              {offset + 1}–{offset + data.items.length} of {data.total.toLocaleString()}
            </span>
            <PageLink href={urlWith({ offset: offset + PAGE_SIZE })} enabled={offset + PAGE_SIZE < data.total} label="Next page" />
          </nav>
        </>
      )}
    </section>
  );
}

/** Leads and observations are two views of the same firings: a link between them. */
function TriageTabs({ current }: { current: string }) {
  return (
    <nav class="tabs" aria-label="Leads and observations">
      <a href="/leads" aria-current={current === '/leads' ? 'page' : undefined}>
        Leads
      </a>
      <a href="/observations" aria-current={current === '/observations' ? 'page' : undefined}>
        Observations
      </a>
    </nav>
  );
}

export function LeadsPage() {
  return (
    <ListPage<Lead>
      path="/leads"
      title="Leads"
      noun="lead"
      apiPath="/v1/leads"
      field="leads"
      columns={['Rule', 'Severity', 'Group', 'Events', 'First event', 'Raised']}
      row={(l) => (
        <>
          <td>
            <a href={l.incident_id ? `/incidents/${encodeURIComponent(l.incident_id)}` : evidenceHref(l.artifact_ids)}>{l.rule_name}</a>
            {!l.incident_id && <span class="tag">in no incident yet</span>}
          </td>
          <td>
            <SeverityBadge severity={l.severity} />
          </td>
          <td>{l.group_by ? `${l.group_by}: ${l.group_value}` : <span class="empty">—</span>}</td>
          <td>{l.event_count.toLocaleString()}</td>
          <td class="nowrap">
            <Time iso={l.first_seen} />
          </td>
          <td class="nowrap">
            <Time iso={l.created_at} />
          </td>
        </>
      )}
    />
  );
}

/** Who made an observation, in words: a lead rule's firing, a backfill's, or the user or key that wrote it (the full name on hover). */
function madeBy(createdBy: string): string {
  if (createdBy.startsWith('rule:')) return 'a lead rule';
  if (createdBy.startsWith('backfill:')) return 'a backfill';
  return createdBy;
}

export function ObservationsPage() {
  return (
    <ListPage<Observation>
      path="/observations"
      title="Observations"
      noun="observation"
      apiPath="/v1/observations"
      field="observations"
      columns={['Description', 'Type', 'Severity', 'Artifacts', 'By', 'Time']}
      row={(o) => (
        <>
          <td>
            {o.artifact_ids.length > 0 ? <a href={evidenceHref(o.artifact_ids)}>{o.description}</a> : o.description}
          </td>
          <td>{o.type}</td>
          <td>
            <SeverityBadge severity={o.severity} />
          </td>
          <td>{o.artifact_ids.length.toLocaleString()}</td>
          <td title={o.created_by}>{madeBy(o.created_by)}</td>
          <td class="nowrap">
            <Time iso={o.created_at} />
          </td>
        </>
      )}
    />
  );
}
