// The orders the triage lists offer (the API's `sort`), by the key kept in the URL.
export const SORTS: ReadonlyArray<{ key: string; label: string; caption: string }> = [
  { key: 'newest', label: 'Newest first', caption: 'newest first' },
  { key: 'oldest', label: 'Oldest first', caption: 'oldest first' },
  { key: 'severity', label: 'Highest severity first', caption: 'highest severity first' },
];

/** The sort a URL asks for; newest when it names none we know. */
export function sortFrom(params: URLSearchParams): (typeof SORTS)[number] {
  return SORTS.find((s) => s.key === params.get('sort')) ?? SORTS[0]!;
}
