// The orders the triage lists (incidents, leads, observations) offer, as
// ORDER BY clauses: the same three everywhere, each ending on id so that
// pages never overlap or skip a row.
import { z } from 'zod';
import { SEVERITIES } from './severity.js';

export const LIST_SORTS = ['newest', 'oldest', 'severity'] as const;
export const ListSort = z.enum(LIST_SORTS, { message: `sort must be one of ${LIST_SORTS.join(', ')}` });
export type ListSort = z.infer<typeof ListSort>;

/** newest / oldest by `timeColumn`; severity: highest first, newest first within one. */
export function listOrderBy(sort: ListSort, timeColumn: string, severityColumn = 'severity'): string {
  if (sort === 'oldest') return `${timeColumn} ASC, id`;
  if (sort === 'severity') return `indexOf([${SEVERITIES.map((s) => `'${s}'`).join(', ')}], ${severityColumn}) DESC, ${timeColumn} DESC, id`;
  return `${timeColumn} DESC, id`;
}
