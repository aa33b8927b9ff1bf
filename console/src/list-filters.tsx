// The severity and order choices the triage lists share (incidents, leads,
// observations). They live in the URL: each change is a navigation, so a
// list can be linked to and comes back as it was.
import { SORTS } from './list-sort.ts';
import { SEVERITIES } from './severity.tsx';

interface Props {
  severity: string;
  sortKey: string;
  /** Navigates to the list with these parameters changed ('' removes one). */
  change: (params: Record<string, string>) => void;
}

export function SeverityAndOrder({ severity, sortKey, change }: Props) {
  return (
    <>
      <label for="severity-filter">Severity</label>
      <select id="severity-filter" value={severity} onChange={(e) => change({ severity: e.currentTarget.value })}>
        <option value="">Any severity</option>
        {SEVERITIES.map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </select>
      <label for="sort">Order</label>
      <select id="sort" value={sortKey} onChange={(e) => change({ sort: e.currentTarget.value === 'newest' ? '' : e.currentTarget.value })}>
        {SORTS.map((s) => (
          <option key={s.key} value={s.key}>
            {s.label}
          </option>
        ))}
      </select>
    </>
  );
}
