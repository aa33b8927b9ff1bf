// The fields the current search's matches hold (GET /v1/artifacts/fields),
// each opening to its commonest values; a value adds `field:"value"` to the
// query, or `NOT field:"value"` to leave it out.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api } from '../api.ts';
import { rangeBounds } from '../time.tsx';
import { searchUrl, type SearchState } from './search-state.ts';

interface FieldCount {
  field: string;
  count: number;
}

interface ValueCount {
  value: string;
  count: number;
}

/** A field test in the query language: the value quoted, its quotes and backslashes escaped. */
export function fieldTerm(field: string, value: string): string {
  return `${field}:"${value.replace(/["\\]/g, '\\$&')}"`;
}

function withTerm(query: string, term: string): string {
  return query.trim() ? `${query.trim()} ${term}` : term;
}

function FieldValues({ state, field }: { state: SearchState; field: string }) {
  const values = useSignal<ValueCount[] | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    api<{ values: ValueCount[] }>('GET', '/v1/artifacts/fields', { query: { query: state.q, ...rangeBounds(state.range, state.from, state.to), field, limit: 5 }, signal: controller.signal })
      .then(({ data }) => (values.value = data.values))
      .catch(() => undefined);
    return () => controller.abort();
  }, [field, state.q, state.range, state.from, state.to]);
  if (!values.value) return <p class="empty">Loading…</p>;
  return (
    <ul class="values" aria-label={`Top values of ${field}`}>
      {values.value.map((v) => (
        <li key={v.value}>
          <a href={searchUrl({ ...state, q: withTerm(state.q, fieldTerm(field, v.value)), offset: 0, artifact: null })} aria-label={`Add ${field}: ${v.value}`} class="value">
            {v.value}
          </a>
          <span class="count">{v.count.toLocaleString()}</span>
          <a href={searchUrl({ ...state, q: withTerm(state.q, `NOT ${fieldTerm(field, v.value)}`), offset: 0, artifact: null })} aria-label={`Exclude ${field}: ${v.value}`} class="exclude">
            NOT
          </a>
        </li>
      ))}
    </ul>
  );
}

/** `ready`: the search's results have answered (the fields are asked after them, not beside them). */
export function FieldSidebar({ state, ready }: { state: SearchState; ready: boolean }) {
  const fields = useSignal<FieldCount[] | null>(null);
  const open = useSignal<string | null>(null);

  useEffect(() => {
    if (!ready) return;
    const controller = new AbortController();
    api<{ fields: FieldCount[] }>('GET', '/v1/artifacts/fields', { query: { query: state.q, ...rangeBounds(state.range, state.from, state.to), limit: 30 }, signal: controller.signal })
      .then(({ data }) => (fields.value = data.fields))
      .catch(() => (fields.value = null));
    return () => controller.abort();
  }, [state.q, state.range, state.from, state.to, ready]);

  return (
    <nav class="field-sidebar" aria-label="Fields">
      <h2>Fields</h2>
      {fields.value && fields.value.length === 0 && <p class="empty">No parsed fields in these matches.</p>}
      <ul class="plain-list">
        {(fields.value ?? []).map((f) => (
          <li key={f.field}>
            <button type="button" class="field-name" aria-expanded={open.value === f.field ? 'true' : 'false'} onClick={() => (open.value = open.value === f.field ? null : f.field)}>
              {f.field}
            </button>
            {open.value === f.field && <FieldValues state={state} field={f.field} />}
          </li>
        ))}
      </ul>
    </nav>
  );
}
