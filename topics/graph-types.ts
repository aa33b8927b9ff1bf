// The knowledge graph's node and edge types, alone in a module with no
// imports, so the console's graph explorer offers the same filters the API
// checks (console/src/pages/graph.tsx) without bundling zod.
export const NODE_TYPES = ['IP', 'domain', 'host', 'user', 'email'] as const;

export const EDGE_TYPES = ['communicates_with', 'resolved_to', 'authenticated_as', 'member_of', 'related_to'] as const;
