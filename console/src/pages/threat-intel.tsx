// Threat intel (/settings/threat-intel, threatfeed:read; changes with
// threatfeed:write): the feeds subscribed to, their sync jobs (followed
// while one runs), Sync now, the indicator library and the publications
// cairn offers others. Feed credentials are never shown.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { can } from '../session.ts';
import { Time } from '../time.tsx';
import { SettingsTabs } from './settings.tsx';
import { ErrorLine, NoticeLine } from '../messages.tsx';

const FEED_KINDS = [
  { kind: 'plain', label: 'Plain list (one value a line)' },
  { kind: 'csv', label: 'CSV' },
  { kind: 'stix-bundle', label: 'STIX 2.1 bundle' },
  { kind: 'misp', label: 'MISP feed' },
  { kind: 'taxii', label: 'TAXII 2.1' },
] as const;
const JOB_POLL_MS = 1000;
const LIBRARY_PAGE = 50;

interface Subscription {
  id: string;
  name: string;
  kind: string;
  url: string;
  enabled: boolean;
  poll_interval: string;
}

interface Job {
  id: string;
  subscription_name: string;
  trigger: string;
  status: string;
  queued_at: string;
  finished_at: string | null;
  fetched: number;
  added: number;
  updated: number;
  removed: number;
  rejected: number;
  error: string | null;
}

interface Indicator {
  id: string;
  type: string;
  value: string;
  status: string;
  score: number;
  confidence: number;
  feeds: Array<{ name: string }>;
  hit_count: number;
}

interface Publication {
  id: string;
  name: string;
  object_count: number;
  collection_url: string;
}

const errorText = (err: unknown) => (err instanceof ApiError ? err.message : String(err));

export function ThreatIntelPage() {
  const version = useSignal(0);
  const subscriptions = useSignal<Subscription[] | null>(null);
  const jobs = useSignal<Job[] | null>(null);
  const library = useSignal<{ indicators: Indicator[]; total: number } | null>(null);
  const publications = useSignal<Publication[] | null>(null);
  const draft = useSignal({ name: '', kind: 'plain', url: '' });
  const error = useSignal<string | null>(null);
  const notice = useSignal<string | null>(null);
  const write = can('threatfeed:write');

  useEffect(() => {
    const controller = new AbortController();
    const signal = controller.signal;
    const ignoreAbort = (err: unknown) => {
      if (!signal.aborted) error.value = errorText(err);
    };
    api<{ subscriptions: Subscription[] }>('GET', '/v1/threatfeed/subscriptions', { query: { limit: 100 }, signal })
      .then(({ data }) => (subscriptions.value = data.subscriptions))
      .catch(ignoreAbort);
    api<{ jobs: Job[] }>('GET', '/v1/threatfeed/jobs', { query: { limit: 20 }, signal })
      .then(({ data }) => (jobs.value = data.jobs))
      .catch(ignoreAbort);
    api<{ indicators: Indicator[]; total: number }>('GET', '/v1/threatfeed/library', { query: { limit: LIBRARY_PAGE }, signal })
      .then(({ data }) => (library.value = data))
      .catch(ignoreAbort);
    api<{ publications: Publication[] }>('GET', '/v1/threatfeed/publications', { query: { limit: 100 }, signal })
      .then(({ data }) => (publications.value = data.publications))
      .catch(() => undefined);
    return () => controller.abort();
  }, [version.value]);

  // While a sync is queued or running, everything is asked again each second: the job's counts, then the library it fills.
  const busy = (jobs.value ?? []).some((j) => j.status === 'queued' || j.status === 'running');
  useEffect(() => {
    if (!busy) return;
    const timer = setTimeout(() => version.value++, JOB_POLL_MS);
    return () => clearTimeout(timer);
  }, [busy, jobs.value]);

  async function act(work: () => Promise<{ message: string }>) {
    error.value = null;
    try {
      notice.value = (await work()).message;
      version.value++;
    } catch (err) {
      error.value = errorText(err);
    }
  }

  async function subscribe(event: Event) {
    event.preventDefault();
    await act(() => api('POST', '/v1/threatfeed/subscriptions', { body: draft.value }));
    if (!error.value) draft.value = { name: '', kind: 'plain', url: '' };
  }

  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Threat intel</h1>
      <SettingsTabs current="/settings/threat-intel" />
      <ErrorLine message={error.value} />
      <NoticeLine message={notice.value} />
      <h2>Feeds</h2>
      {subscriptions.value && subscriptions.value.length === 0 && <p class="empty">No feed subscribed.</p>}
      {subscriptions.value && subscriptions.value.length > 0 && (
        <table>
          <caption class="visually-hidden">Feed subscriptions, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Kind</th>
              <th scope="col">URL</th>
              <th scope="col">Synced every</th>
              <th scope="col">State</th>
              {write && (
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {subscriptions.value.map((s) => (
              <tr key={s.id}>
                <td>{s.name}</td>
                <td>{s.kind}</td>
                <td class="raw">{s.url}</td>
                <td>{s.poll_interval}</td>
                <td>{s.enabled ? 'Enabled' : 'Disabled'}</td>
                {write && (
                  <td class="nowrap">
                    <button type="button" class="secondary" aria-label={`Sync ${s.name} now`} onClick={() => void act(() => api('POST', '/v1/threatfeed/sync', { body: { subscription_id: s.id } }))}>
                      Sync now
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {write && (
        <form class="stack" aria-labelledby="subscribe-title" onSubmit={subscribe}>
          <h2 id="subscribe-title">Subscribe to a feed</h2>
          <label for="feed-name">Feed name</label>
          <input id="feed-name" type="text" required value={draft.value.name} onInput={(e) => (draft.value = { ...draft.value, name: e.currentTarget.value })} />
          <label for="feed-kind">Kind</label>
          <select id="feed-kind" value={draft.value.kind} onChange={(e) => (draft.value = { ...draft.value, kind: e.currentTarget.value })}>
            {FEED_KINDS.map((k) => (
              <option key={k.kind} value={k.kind}>
                {k.label}
              </option>
            ))}
          </select>
          <label for="feed-url">Feed URL</label>
          <input id="feed-url" type="url" required value={draft.value.url} onInput={(e) => (draft.value = { ...draft.value, url: e.currentTarget.value })} />
          <p class="status">Credentials and per-kind settings (docs/threat-intel.md) are set through the API for now.</p>
          <div>
            <button type="submit">Subscribe</button>
          </div>
        </form>
      )}
      <h2>Sync jobs</h2>
      {jobs.value && jobs.value.length === 0 && <p class="empty">No sync yet.</p>}
      {jobs.value && jobs.value.length > 0 && (
        <table>
          <caption class="visually-hidden">Sync jobs, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Feed</th>
              <th scope="col">Status</th>
              <th scope="col" class="number">Read</th>
              <th scope="col" class="number">Added</th>
              <th scope="col" class="number">Updated</th>
              <th scope="col" class="number">Removed</th>
              <th scope="col" class="number">Rejected</th>
              <th scope="col">Queued</th>
            </tr>
          </thead>
          <tbody>
            {jobs.value.map((j) => (
              <tr key={j.id}>
                <td>{j.subscription_name}</td>
                <td class={j.status === 'failed' ? 'error' : ''}>
                  {j.status}
                  {j.error ? `: ${j.error}` : ''}
                </td>
                <td class="number">{j.fetched}</td>
                <td class="number">{j.added}</td>
                <td class="number">{j.updated}</td>
                <td class="number">{j.removed}</td>
                <td class="number">{j.rejected}</td>
                <td class="nowrap">
                  <Time iso={j.queued_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Indicator library</h2>
      {library.value && (
        <p class="status" role="status">
          {library.value.total.toLocaleString()} indicator{library.value.total === 1 ? '' : 's'}
          {library.value.total > LIBRARY_PAGE ? `, the ${LIBRARY_PAGE} most recently changed shown` : ''}
        </p>
      )}
      {library.value && library.value.indicators.length > 0 && (
        <table>
          <caption class="visually-hidden">Indicators, most recently changed first</caption>
          <thead>
            <tr>
              <th scope="col">Value</th>
              <th scope="col">Type</th>
              <th scope="col">Status</th>
              <th scope="col" class="number">Score</th>
              <th scope="col">Feeds</th>
              <th scope="col" class="number">Hits</th>
            </tr>
          </thead>
          <tbody>
            {library.value.indicators.map((i) => (
              <tr key={i.id}>
                <td>
                  <code>{i.value}</code>
                </td>
                <td>{i.type}</td>
                <td>{i.status}</td>
                <td class="number">{Math.round(i.score)}</td>
                <td>{i.feeds.map((f) => f.name).join(', ')}</td>
                <td class="number">{i.hit_count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Publications</h2>
      {publications.value && publications.value.length === 0 && <p class="empty">Nothing published (POST /api/v1/threatfeed/publications, docs/threat-intel.md).</p>}
      {publications.value && publications.value.length > 0 && (
        <ul class="plain">
          {publications.value.map((p) => (
            <li key={p.id}>
              {p.name}: {p.object_count} indicators, TAXII collection <code>{p.collection_url}</code>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
