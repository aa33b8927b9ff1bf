// Search (the Discover job): the query, the time range and the page live in
// the URL (/search?q=...&range=24h&offset=50&artifact=<id>), so reload and
// shared links show the same search. Results newest first, as the API gives them.
import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { navigate, place } from '../router.ts';
import { fromLocalInput, RANGES, rangeBounds, Time, toLocalInput } from '../time.tsx';
import { SavedSearches } from './saved-searches.tsx';
import { Histogram, type HistogramData } from './histogram.tsx';
import { FieldSidebar } from './field-sidebar.tsx';
import { ArtifactPanel, type Artifact } from './artifact.tsx';
import { searchUrl, stateFromUrl } from './search-state.ts';
import { PageLink } from '../page-link.tsx';
import { moveInRows } from '../list-keys.ts';
import { QueryBox } from '../query-box.tsx';
import { ColumnChooser } from './column-chooser.tsx';

const PAGE_SIZE = 50;

interface SearchAnswer {
  artifacts: Artifact[];
  total: number;
  total_exact: boolean;
}

/** The query as typed, with the character the API points at marked (position is 1-based; past the end means "here"). */
function QueryErrorEcho({ query, position }: { query: string; position: number }) {
  const at = Math.min(Math.max(position - 1, 0), query.length);
  return (
    <pre class="query-echo" aria-hidden="true">
      {query.slice(0, at)}
      <mark>{query.slice(at, at + 1) || ' '}</mark>
      {query.slice(at + 1)}
    </pre>
  );
}

export function SearchPage() {
  const state = stateFromUrl(place.value.params);
  const draft = useSignal(state.q);
  const draftRange = useSignal(state.range);
  const draftFrom = useSignal(toLocalInput(state.from));
  const draftTo = useSignal(toLocalInput(state.to));
  const answer = useSignal<SearchAnswer | null>(null);
  const histogram = useSignal<HistogramData | null>(null);
  const error = useSignal<ApiError | null>(null);
  const loading = useSignal(false);
  const queryInput = useRef<HTMLInputElement>(null);
  // The chart and the field sidebar are asked only once this search's results have answered: on a large store the
  // three compete for the same cores, and the results are what the analyst waits for.
  const searchKey = JSON.stringify([state.q, state.range, state.from, state.to]);
  const answeredKey = useSignal<string | null>(null);
  const answered = answeredKey.value === searchKey;

  // The URL is the truth: when it changes (submit, paging, back button, reload) the form follows and the search runs.
  useEffect(() => {
    draft.value = state.q;
    draftRange.value = state.range;
    draftFrom.value = toLocalInput(state.from);
    draftTo.value = toLocalInput(state.to);
    const controller = new AbortController();
    const bounds = rangeBounds(state.range, state.from, state.to);
    loading.value = true;
    error.value = null;
    api<SearchAnswer>('GET', '/v1/artifacts', {
      query: { query: state.q, ...bounds, limit: PAGE_SIZE, offset: state.offset, fields: state.cols?.join(',') },
      signal: controller.signal,
    })
      .then(({ data }) => {
        performance.mark('cairn:results-answer');
        answer.value = data;
        answeredKey.value = searchKey;
      })
      .catch((err: unknown) => {
        if (controller.signal.aborted) return;
        answer.value = null;
        answeredKey.value = searchKey;
        error.value = err instanceof ApiError ? err : new ApiError(String(err), 0, 'network', null);
        const position = (error.value.details as { position?: unknown } | null)?.position;
        if (typeof position === 'number' && queryInput.current) {
          queryInput.current.focus();
          queryInput.current.setSelectionRange(position - 1, position - 1);
        }
      })
      .finally(() => {
        if (!controller.signal.aborted) loading.value = false;
      });
    return () => controller.abort();
  }, [state.q, state.range, state.from, state.to, state.offset, state.cols?.join(',')]);

  // The chart does not change with the page of results; a failure leaves it out (the search's own error says why).
  useEffect(() => {
    if (!answered) return;
    const controller = new AbortController();
    api<HistogramData>('GET', '/v1/artifacts/histogram', { query: { query: state.q, ...rangeBounds(state.range, state.from, state.to), buckets: 60 }, signal: controller.signal })
      .then(({ data }) => (histogram.value = data))
      .catch(() => {
        if (!controller.signal.aborted) histogram.value = null;
      });
    return () => controller.abort();
  }, [searchKey, answered]);

  // How long the results took to show after the API answered (read by the browser test).
  useEffect(() => {
    if (answer.value && performance.getEntriesByName('cairn:results-answer').length) {
      performance.measure('cairn:results-render', 'cairn:results-answer');
      performance.clearMarks('cairn:results-answer');
      performance.mark('cairn:results-shown');
    }
  }, [answer.value]);

  function submit(event: Event) {
    event.preventDefault();
    navigate(searchUrl({ q: draft.value.trim(), range: draftRange.value, from: fromLocalInput(draftFrom.value), to: fromLocalInput(draftTo.value), offset: 0, artifact: null }));
  }

  const position = (error.value?.details as { position?: unknown } | null)?.position;
  const data = answer.value;
  const page = (offset: number) => searchUrl({ ...state, offset, artifact: null });
  const selected = state.artifact ? (data?.artifacts.find((a) => a.id === state.artifact) ?? null) : null;

  return (
    <div class={state.artifact ? 'search with-detail' : 'search'}>
      <section aria-labelledby="page-title" class="search-main">
        <h1 id="page-title">Search</h1>
        <form role="search" aria-label="Artifacts" onSubmit={submit} class="search-form">
          <label for="query">Query</label>
          <QueryBox value={draft.value} onInput={(v) => (draft.value = v)} range={{ key: draftRange.value, from: fromLocalInput(draftFrom.value), to: fromLocalInput(draftTo.value) }} invalid={Boolean(error.value)} inputRef={queryInput} />
          <label for="range">Time range</label>
          <select id="range" value={draftRange.value} onChange={(e) => (draftRange.value = e.currentTarget.value)}>
            {RANGES.map((r) => (
              <option key={r.key} value={r.key}>
                {r.label}
              </option>
            ))}
          </select>
          <button type="submit">Search</button>
          {draftRange.value === 'custom' && (
            <div class="custom-range">
              <label for="range-from">From</label>
              <input id="range-from" type="datetime-local" value={draftFrom.value} onInput={(e) => (draftFrom.value = e.currentTarget.value)} />
              <label for="range-to">To</label>
              <input id="range-to" type="datetime-local" value={draftTo.value} onInput={(e) => (draftTo.value = e.currentTarget.value)} />
            </div>
          )}
        </form>
        <div class="search-tools">
          <SavedSearches current={state} />
          <ColumnChooser state={state} />
        </div>
        {error.value && (
          <div class="error" id="query-error" role="alert">
            <p>{error.value.message}</p>
            {typeof position === 'number' && <QueryErrorEcho query={state.q} position={position} />}
          </div>
        )}
        <p role="status" class="status">
          {loading.value ? 'Searching…' : data ? `${data.total_exact ? '' : 'More than '}${data.total.toLocaleString()} artifact${data.total === 1 ? '' : 's'}` : ''}
        </p>
        {histogram.value && !error.value && (
          <Histogram data={histogram.value} onZoom={(from, to) => navigate(searchUrl({ ...state, range: 'custom', from, to, offset: 0, artifact: null }))} />
        )}
        <div class="search-body">
        <FieldSidebar state={state} ready={answered} />
        <div class="search-results">
        {data && data.artifacts.length === 0 && !loading.value && <p class="empty">No artifacts match this search in this time range.</p>}
        {data && data.artifacts.length > 0 && (
          <>
            <table class="results">
              <caption class="visually-hidden">Search results, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Source</th>
                  {state.cols?.map((field) => (
                    <th key={field} scope="col">
                      <code>{field}</code>
                    </th>
                  ))}
                  <th scope="col">Raw text</th>
                </tr>
              </thead>
              <tbody onKeyDown={moveInRows}>
                {data.artifacts.map((artifact) => (
                  <tr key={artifact.id} aria-selected={artifact.id === state.artifact ? 'true' : undefined}>
                    <td class="nowrap">
                      <Time iso={artifact.timestamp} />
                    </td>
                    <td>{artifact.source}</td>
                    {state.cols?.map((field) => (
                      <td key={field} class="field-cell">
                        {artifact.fields?.[field]?.join(', ') ?? ''}
                      </td>
                    ))}
                    <td class="raw">
                      <a href={searchUrl({ ...state, artifact: artifact.id })}>{artifact.raw}</a>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <nav class="pager" aria-label="Result pages">
              <PageLink href={page(Math.max(0, state.offset - PAGE_SIZE))} enabled={state.offset > 0} label="Previous page" />
              <span>
                {state.offset + 1}–{state.offset + data.artifacts.length} of {data.total.toLocaleString()}
              </span>
              <PageLink href={page(state.offset + PAGE_SIZE)} enabled={state.offset + PAGE_SIZE < data.total} label="Next page" />
            </nav>
          </>
        )}
        </div>
        </div>
      </section>
      {state.artifact && <ArtifactPanel id={state.artifact} known={selected} onClose={() => navigate(searchUrl({ ...state, artifact: null }))} />}
    </div>
  );
}
