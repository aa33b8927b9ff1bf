// A search as the URL holds it (/search?q=...&range=7d&offset=50&cols=user.name,source.ip&artifact=<id>):
// the one place that reads and writes that form.
import { withParams } from '../router.ts';
import { DEFAULT_RANGE, RANGES } from '../time.tsx';

export interface SearchState {
  q: string;
  range: string;
  /** ISO times of a custom range (range 'custom'); either may be open. */
  from: string | null;
  to: string | null;
  offset: number;
  artifact: string | null;
  /** Parsed fields shown as columns of the results, in the order chosen. */
  cols?: string[];
}

const FIELD_NAME = /^[A-Za-z@][A-Za-z0-9_.@-]*$/;
/** As many columns as the API answers fields for. */
export const MAX_COLUMNS = 20;

export function stateFromUrl(params: URLSearchParams): SearchState {
  const offset = Number(params.get('offset') ?? 0);
  return {
    q: params.get('q') ?? '',
    range: RANGES.some((r) => r.key === params.get('range')) ? params.get('range')! : DEFAULT_RANGE,
    from: params.get('from'),
    to: params.get('to'),
    offset: Number.isInteger(offset) && offset > 0 ? offset : 0,
    artifact: params.get('artifact'),
    cols: [...new Set((params.get('cols') ?? '').split(',').filter((name) => FIELD_NAME.test(name)))].slice(0, MAX_COLUMNS),
  };
}

export function searchUrl(state: SearchState): string {
  const custom = state.range === 'custom';
  return withParams('/search', {
    q: state.q,
    range: state.range === DEFAULT_RANGE ? '' : state.range,
    from: custom ? state.from : '',
    to: custom ? state.to : '',
    offset: state.offset || '',
    cols: state.cols?.join(','),
    artifact: state.artifact,
  });
}

