// Saved searches (docs/saved-searches.md) beside the search: open one (a
// link to its URL, so it can be shared as any search), and save the current
// search by name, privately or shared with the organization.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { can } from '../session.ts';
import { RANGES } from '../time.tsx';
import { searchUrl, type SearchState } from './search-state.ts';

interface SavedSearch {
  id: string;
  name: string;
  query: string;
  shared: boolean;
  filters: { range?: string; start?: string; end?: string };
}

/** The console's range keys are the API's "last <n><unit>" ranges; other ranges open as custom start/end. */
function stateOf(saved: SavedSearch): SearchState {
  const key = saved.filters.range?.replace(/^last /, '');
  const base = { q: saved.query, from: null, to: null, offset: 0, artifact: null };
  if (key && RANGES.some((r) => r.key === key)) return { ...base, range: key };
  if (saved.filters.start || saved.filters.end) return { ...base, range: 'custom', from: saved.filters.start ?? null, to: saved.filters.end ?? null };
  return { ...base, range: key ? '24h' : 'all' };
}

function filtersOf(state: SearchState): SavedSearch['filters'] {
  if (state.range === 'custom') return { ...(state.from ? { start: state.from } : {}), ...(state.to ? { end: state.to } : {}) };
  return state.range === 'all' ? {} : { range: `last ${state.range}` };
}

export function SavedSearches({ current }: { current: SearchState }) {
  const saved = useSignal<SavedSearch[] | null>(null);
  const name = useSignal('');
  const shared = useSignal(false);
  const result = useSignal<{ ok: boolean; text: string } | null>(null);
  const version = useSignal(0);
  const expanded = useSignal(false);

  useEffect(() => {
    const controller = new AbortController();
    api<{ saved_searches: SavedSearch[] }>('GET', '/v1/saved-searches', { query: { limit: 100 }, signal: controller.signal })
      .then(({ data }) => (saved.value = data.saved_searches))
      .catch(() => undefined);
    return () => controller.abort();
  }, [version.value]);

  async function save(event: Event) {
    event.preventDefault();
    try {
      const { message } = await api('POST', '/v1/saved-searches', { body: { name: name.value.trim(), query: current.q, filters: filtersOf(current), shared: shared.value } });
      result.value = { ok: true, text: message };
      name.value = '';
      version.value += 1;
    } catch (err) {
      result.value = { ok: false, text: err instanceof ApiError ? err.message : String(err) };
    }
  }

  return (
    <div class="saved">
      <button type="button" class="disclosure" aria-expanded={expanded.value ? 'true' : 'false'} aria-controls="saved-searches" onClick={() => (expanded.value = !expanded.value)}>
        <span aria-hidden="true">{expanded.value ? '▾ ' : '▸ '}</span>
        Saved searches{saved.value ? ` (${saved.value.length})` : ''}
      </button>
      <div id="saved-searches" hidden={!expanded.value}>
      {saved.value && saved.value.length === 0 && <p class="empty">No saved searches yet.</p>}
      {saved.value && saved.value.length > 0 && (
        <ul class="plain" aria-label="Saved searches">
          {saved.value.map((s) => (
            <li key={s.id}>
              <a href={searchUrl(stateOf(s))}>{s.name}</a> <code>{s.query || '(everything)'}</code>
              {s.shared && <span class="tag">shared</span>}
            </li>
          ))}
        </ul>
      )}
      {can('signals:write') && (
        <form class="save-search" onSubmit={save} aria-label="Save this search">
          <label for="saved-name">Name</label>
          <input id="saved-name" required maxLength={200} value={name.value} onInput={(e) => (name.value = e.currentTarget.value)} />
          <label>
            <input type="checkbox" checked={shared.value} onChange={(e) => (shared.value = e.currentTarget.checked)} /> Share with my organization
          </label>
          <button type="submit">Save search</button>
          {result.value && (
            <p class={result.value.ok ? 'notice' : 'error'} role={result.value.ok ? 'status' : 'alert'}>
              {result.value.text}
            </p>
          )}
        </form>
      )}
      </div>
    </div>
  );
}
