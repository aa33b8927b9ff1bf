// The artifacts a lead was raised on, read through the search API (one
// `id:(a OR b ...)` query), each linking to itself in search.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, ApiError } from './api.ts';
import { Time } from './time.tsx';
import { searchUrl } from './pages/search-state.ts';
import type { Artifact } from './pages/artifact.tsx';

/** Artifacts read at once: the query stays well under the API's 2,000 characters. */
export const EVIDENCE_SHOWN = 25;

const idQuery = (ids: string[]) => `id:(${ids.map((id) => `"${id}"`).join(' OR ')})`;

/** A link to one artifact in search, opened beside the results. */
export const artifactHref = (id: string) => searchUrl({ q: idQuery([id]), range: 'all', from: null, to: null, offset: 0, artifact: id });

/** A search for some of these artifacts (as many as one query holds), e.g. a lead's or an observation's evidence. */
export const evidenceHref = (ids: string[]) => searchUrl({ q: idQuery(ids.slice(0, EVIDENCE_SHOWN)), range: 'all', from: null, to: null, offset: 0, artifact: null });

export function Evidence({ ids, label }: { ids: string[]; label: string }) {
  const shown = ids.slice(0, EVIDENCE_SHOWN);
  const artifacts = useSignal<Artifact[] | null>(null);
  const error = useSignal<string | null>(null);
  const key = shown.join(',');

  useEffect(() => {
    if (shown.length === 0) return;
    const controller = new AbortController();
    api<{ artifacts: Artifact[] }>('GET', '/v1/artifacts', { query: { query: idQuery(shown), limit: shown.length }, signal: controller.signal })
      .then(({ data }) => (artifacts.value = data.artifacts))
      .catch((err: unknown) => {
        if (!controller.signal.aborted) error.value = err instanceof ApiError ? err.message : String(err);
      });
    return () => controller.abort();
  }, [key]);

  if (ids.length === 0) return <p class="empty">No evidence artifacts.</p>;
  if (error.value)
    return (
      <p class="error" role="alert">
        {error.value}
      </p>
    );
  if (!artifacts.value) return <p role="status">Loading evidence…</p>;
  return (
    <>
      <table class="results">
        <caption class="visually-hidden">{label}</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Source</th>
            <th scope="col">Raw text</th>
          </tr>
        </thead>
        <tbody>
          {artifacts.value.map((artifact) => (
            <tr key={artifact.id}>
              <td class="nowrap">
                <Time iso={artifact.timestamp} />
              </td>
              <td>{artifact.source}</td>
              <td class="raw">
                <a href={artifactHref(artifact.id)}>{artifact.raw}</a>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {ids.length > shown.length && (
        <p class="status">
          The first {shown.length} of {ids.length.toLocaleString()} evidence artifacts.
        </p>
      )}
    </>
  );
}
