// The results' columns: parsed fields chosen from those the matches hold
// (GET /v1/artifacts/fields), kept in the URL (`cols=`) in the order chosen.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api } from '../api.ts';
import { navigate } from '../router.ts';
import { rangeBounds } from '../time.tsx';
import { MAX_COLUMNS, searchUrl, type SearchState } from './search-state.ts';

export function ColumnChooser({ state }: { state: SearchState }) {
  const expanded = useSignal(false);
  const fields = useSignal<string[] | null>(null);
  const chosen = state.cols ?? [];

  useEffect(() => {
    if (!expanded.value) return;
    const controller = new AbortController();
    api<{ fields: Array<{ field: string }> }>('GET', '/v1/artifacts/fields', { query: { query: state.q, ...rangeBounds(state.range, state.from, state.to), limit: 100 }, signal: controller.signal })
      .then(({ data }) => (fields.value = data.fields.map((f) => f.field)))
      .catch(() => {
        if (!controller.signal.aborted) fields.value = [];
      });
    return () => controller.abort();
  }, [expanded.value, state.q, state.range, state.from, state.to]);

  function toggle(field: string, on: boolean) {
    const cols = on ? [...chosen, field] : chosen.filter((c) => c !== field);
    navigate(searchUrl({ ...state, cols, offset: state.offset }), { replace: false });
  }

  // The chosen ones first (in their order), then the others the matches hold.
  const offered = [...chosen, ...(fields.value ?? []).filter((f) => !chosen.includes(f)).sort()];
  return (
    <div class="columns-chooser">
      <button type="button" class="disclosure" aria-expanded={expanded.value ? 'true' : 'false'} aria-controls="column-list" onClick={() => (expanded.value = !expanded.value)}>
        <span aria-hidden="true">{expanded.value ? '▾ ' : '▸ '}</span>
        Columns{chosen.length ? ` (${chosen.length})` : ''}
      </button>
      {expanded.value && (
        <fieldset id="column-list" class="column-list">
          <legend class="visually-hidden">Fields shown as columns</legend>
          {fields.value === null && <p role="status">Loading fields…</p>}
          {offered.map((field) => {
            const on = chosen.includes(field);
            return (
              <label key={field}>
                <input type="checkbox" checked={on} disabled={!on && chosen.length >= MAX_COLUMNS} onChange={(e) => toggle(field, e.currentTarget.checked)} /> <code>{field}</code>
              </label>
            );
          })}
          {fields.value !== null && offered.length === 0 && <p class="empty">The matches hold no parsed fields.</p>}
        </fieldset>
      )}
    </div>
  );
}
