// A graph node as the API answers it (GET /v1/nodes, an incident's nodes),
// and the small pieces every page shows of one: where an address is
// registered, and its flags in words.

export interface GraphNode {
  id: string;
  type: string;
  value: string;
  flags: { managed: boolean; internal: boolean; trusted: boolean; infrastructure: boolean };
  frameworks: number[];
  edge_count: number;
  created_at: string;
  geo: { country_iso_code: string | null } | null;
  as: { number: number; organization_name: string } | null;
}

export const nodeHref = (id: string) => `/nodes/${encodeURIComponent(id)}`;

/** Country and autonomous system of a public address; a dash when the node has none (not an IP, or a private one). */
export function Whereabouts({ node }: { node: Pick<GraphNode, 'geo' | 'as'> }) {
  if (!node.geo && !node.as) return <span class="empty">—</span>;
  return (
    <span>
      {node.geo?.country_iso_code ?? 'unknown country'}
      {node.as && (
        <>
          {' · '}AS{node.as.number} {node.as.organization_name}
        </>
      )}
    </span>
  );
}

/** The flags that are set, as words (never only a colour); "none" when no flag is set. */
export function FlagList({ node }: { node: Pick<GraphNode, 'flags'> }) {
  const set = Object.entries(node.flags)
    .filter(([, on]) => on)
    .map(([name]) => name);
  if (set.length === 0) return <span class="empty">none</span>;
  return (
    <span class="flags">
      {set.map((name) => (
        <span key={name} class="tag">
          {name}
        </span>
      ))}
    </span>
  );
}
