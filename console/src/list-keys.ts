// Arrow keys in a table of links (search results, incidents): Up and Down
// move to the link in the row above or below, Enter follows it (as links do).

export function moveInRows(event: KeyboardEvent): void {
  if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
  const row = (event.target as Element | null)?.closest?.('tr');
  if (!row) return;
  const next = (event.key === 'ArrowDown' ? row.nextElementSibling : row.previousElementSibling) as HTMLTableRowElement | null;
  const link = next?.querySelector<HTMLAnchorElement>('a[href]');
  if (!link) return;
  event.preventDefault();
  link.focus();
}
