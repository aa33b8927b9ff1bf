// Paging controls shared by the lists.

/** A link to another page of results, or its label alone (not a dead link) when there is none. */
export function PageLink({ href, enabled, label }: { href: string; enabled: boolean; label: string }) {
  return enabled ? <a href={href}>{label}</a> : <span class="disabled">{label}</span>;
}

