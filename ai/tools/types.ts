// What a tool is, who calls it, and what it may read. Tools run with the
// caller's organization and permissions, whether the assistant loop or an
// MCP client asked.
import type { z } from 'zod';
import type { Store } from '../../clickhouse/client.js';
import type { ArtifactPage } from '../../clickhouse/tables/artifacts.js';
import type { Incident } from '../../clickhouse/tables/incidents.js';
import type { Severity } from '../../clickhouse/severity.js';
import type { GraphScopes } from '../../config/env.js';
import type { Permission } from '../../identity/permissions.js';
import type { INDICATOR_TYPES } from '../../threatintel/indicator.js';

/** Who is asking: the API's AuthContext has this shape. */
export interface Caller {
  orgId: string;
  /** A user id, or the subject of an operator token. */
  subject: string;
  permissions: ReadonlySet<string>;
}

/** An incident as GET /v1/incidents answers it. */
export type PresentedIncident = Omit<Incident, 'node_ids' | 'observation_ids'> & { status_name: string; classification: 'true_positive' | 'false_positive' | null };

export interface IncidentDetail extends PresentedIncident {
  nodes: { id: string; type: string; value: string }[];
  observations: { id: string; type: string; description: string; severity: Severity }[];
  status_history: { from_status: number; to_status: number; changed_by: string; changed_by_name: string | null; changed_at: string; note: string }[];
}

export interface ArtifactSearchRequest {
  query?: string;
  source?: string;
  start?: string;
  end?: string;
  limit: number;
  offset: number;
}

/**
 * The read paths that live in the API layer, handed to the tools by it
 * (api/ai-reads.ts) so that a tool answers exactly what the route answers;
 * reads that live lower (table modules, reports) the tools call directly.
 */
export interface IndicatorLookup {
  value: string;
  match: 'exact' | 'prefix';
  type?: (typeof INDICATOR_TYPES)[number];
  seen?: boolean;
  limit: number;
  offset: number;
}

export interface ApiReads {
  /** GET /v1/artifacts. Throws ToolError for a query that does not parse. */
  searchArtifacts(orgId: string, request: ArtifactSearchRequest): Promise<ArtifactPage>;
  /** GET /v1/incidents. */
  listIncidents(orgId: string, filter: { status?: number; severity?: Severity; start?: string; end?: string; limit: number; offset: number }): Promise<{ incidents: PresentedIncident[]; total: number }>;
  /** GET /v1/incidents/:id. */
  incident(orgId: string, id: string): Promise<IncidentDetail | null>;
  /** GET /v1/threatfeed/search: indicators with their latest sightings. */
  indicators(orgId: string, lookup: IndicatorLookup): Promise<{ indicators: Record<string, unknown>[]; total: number }>;
  /** GET /v1/nodes/:id: the node and its most recently seen edges (at most edgeLimit of them). */
  node(orgId: string, id: string, edgeLimit?: number): Promise<{ id: string; type: string; value: string; flags: Record<string, boolean>; edge_count: number; edges: { id: string; source_id: string; target_id: string; type: string }[] } | null>;
}

export interface ToolContext {
  caller: Caller;
  store: Store;
  scopes: GraphScopes;
  reads: ApiReads;
}

/** A tool's answer: JSON data. */
export type ToolResult = Record<string, unknown>;

/** A tool refusing or failing in a way the caller (the model) should read: not found, bad arguments, no permission. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}

export interface ToolSpecOf<I extends z.ZodObject> {
  /** snake_case, what models and MCP clients call it. */
  name: string;
  title: string;
  description: string;
  /** Offered and callable only to callers holding it. */
  permission: Permission;
  /** 'write' tools change data: offered only with the permission and an explicit request (docs/ai.md). */
  effect: 'read' | 'write';
  input: I;
  run(ctx: ToolContext, input: z.output<I>): Promise<ToolResult>;
}

export type Tool = ToolSpecOf<z.ZodObject>;
