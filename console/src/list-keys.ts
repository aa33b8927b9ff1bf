// Arrow keys in a table of links (search results, incidents): Up and Down
// move to the link in the row above or below, Enter follows it (as links do).

export function moveInRows(event: KeyboardEvent): void {
  if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
  const row = (event.target as Element | null)?.closest?.('tr');
  if (!row) return;
  // The nearest row that has a link (a row may have none, e.g. an observation without evidence).
  let next = row;
  let link: HTMLAnchorElement | null = null;
  while (!link) {
    const sibling = (event.key === 'ArrowDown' ? next.nextElementSibling : next.previousElementSibling) as HTMLTableRowElement | null;
    if (!sibling) return;
    next = sibling;
    link = next.querySelector<HTMLAnchorElement>('a[href]');
  }
  event.preventDefault();
  link.focus();
}
