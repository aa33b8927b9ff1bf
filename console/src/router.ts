// The console's places are URLs: the path picks the page, the query string
// holds the page's state (a search, a filter, a page), so reload and shared
// links land at the same place. History API only; no library needed.
import { signal } from '@preact/signals';

export interface Place {
  path: string;
  params: URLSearchParams;
}

function here(): Place {
  return { path: location.pathname, params: new URLSearchParams(location.search) };
}

export const place = signal<Place>(here());

addEventListener('popstate', () => (place.value = here()));

/** Goes to a path on this site (with its query string); `replace` keeps the back button for real moves. */
export function navigate(to: string, { replace = false } = {}): void {
  if (to === location.pathname + location.search) return;
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  place.value = here();
}

/** A path with the given query parameters, leaving out empty ones. */
export function withParams(path: string, params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `${path}?${text}` : path;
}

/** Where a user asked to go back to after login: only a path on this site (never //other.host). */
export function safeReturnPath(value: string | null): string | null {
  return value && /^\/(?![/\\])/.test(value) && !value.startsWith('/login') ? value : null;
}

/** Follows same-origin links without a page load; modified clicks (new tab) keep the browser's way. */
export function onLinkClick(event: MouseEvent): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const anchor = (event.target as Element | null)?.closest?.('a');
  if (!anchor || anchor.target || anchor.hasAttribute('download') || anchor.origin !== location.origin) return;
  event.preventDefault();
  navigate(anchor.pathname + anchor.search);
}
