// The tools the assistant and the MCP server offer: one entry each, here and
// nowhere else. Every tool reads through the same functions as the route
// that answers the same question.
import { z } from 'zod';
import { Severity } from '../../clickhouse/severity.js';
import { listNodes, nodeSummaries } from '../../clickhouse/tables/nodes.js';
import { listObservations } from '../../clickhouse/tables/observations.js';
import { defaultPeriod, periodProblem } from '../../reports/reports.js';
import { REPORT_TYPES, runReport } from '../../reports/snapshots.js';
import { INDICATOR_TYPES } from '../../threatintel/indicator.js';
import { NODE_TYPES } from '../../topics/index.js';
import { ToolError, type Tool, type ToolSpecOf } from './types.js';

/** Rows a tool answers at most per call: enough to reason on, small enough for a model's context. */
const MAX_TOOL_ROWS = 50;
const DEFAULT_TOOL_ROWS = 20;

function defineTool<I extends z.ZodObject>(spec: ToolSpecOf<I>): Tool {
  return spec as unknown as Tool;
}

const Timestamp = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 timestamp, e.g. 2026-01-02T03:04:05Z' });
const Limit = z.number().int().min(1).max(MAX_TOOL_ROWS).default(DEFAULT_TOOL_ROWS).describe(`rows to return, at most ${MAX_TOOL_ROWS}`);
const Offset = z.number().int().min(0).max(100_000).default(0).describe('rows to skip, for the next page');
const Id = (what: string) => z.uuid({ message: `${what} must be a UUID` });

export const TOOLS: readonly Tool[] = [
  defineTool({
    name: 'search_artifacts',
    title: 'Search artifacts',
    description:
      'Search ingested artifacts (raw log lines and events), newest first, with cairn\'s query language: words and "phrases" in the raw text, AND/OR/NOT, field:value on parsed ECS fields (source.ip:10.0.0.5, user.name:root, event.outcome:failure), wildcards, CIDR, ranges. Answers the rows with their raw text and the total.',
    permission: 'signals:read',
    effect: 'read',
    input: z.strictObject({
      query: z.string().max(2000).optional().describe('the query; empty matches everything in the time range'),
      source: z.string().min(1).max(128).optional().describe('only artifacts of this source, e.g. suricata, auth, firewall'),
      start: Timestamp.optional().describe('inclusive'),
      end: Timestamp.optional().describe('exclusive'),
      limit: Limit,
      offset: Offset,
    }),
    async run({ caller, reads }, input) {
      const page = await reads.searchArtifacts(caller.orgId, input);
      return {
        artifacts: page.artifacts.map(({ org_id: _org, ...artifact }) => artifact),
        total: page.total,
        total_exact: page.totalExact,
        limit: input.limit,
        offset: input.offset,
      };
    },
  }),
  defineTool({
    name: 'list_incidents',
    title: 'List incidents',
    description: 'List incidents, newest first, with severity, status (1 New, 2 Investigating, 3 Resolved, 4 Closed, 5 Disrupted), counts and time span; filter by status, severity and creation time.',
    permission: 'incidents:read',
    effect: 'read',
    input: z.strictObject({
      status: z.number().int().min(1).max(5).optional(),
      severity: Severity.optional(),
      start: Timestamp.optional().describe('created at or after'),
      end: Timestamp.optional().describe('created before'),
      limit: Limit,
      offset: Offset,
    }),
    async run({ caller, reads }, input) {
      const { incidents, total } = await reads.listIncidents(caller.orgId, input);
      return { incidents, total, limit: input.limit, offset: input.offset };
    },
  }),
  defineTool({
    name: 'get_incident',
    title: 'Get an incident',
    description: 'One incident with its nodes (the addresses, hosts, users and domains involved), its observations (the findings that raised it) and its status history.',
    permission: 'incidents:read',
    effect: 'read',
    input: z.strictObject({ id: Id('id').describe('the incident id') }),
    async run({ caller, reads }, input) {
      const incident = await reads.incident(caller.orgId, input.id);
      if (!incident) throw new ToolError(`no incident with id ${input.id}`);
      return { incident };
    },
  }),
  defineTool({
    name: 'list_observations',
    title: 'List observations',
    description: 'List observations (findings written by lead rules and analysts), newest first, with type, description, severity, the nodes and artifacts they name and their rule tags (ATT&CK techniques); filter by type, severity, creation time or ids.',
    permission: 'observations:read',
    effect: 'read',
    input: z.strictObject({
      type: z.string().min(1).max(64).optional().describe('e.g. network, auth, malware'),
      severity: Severity.optional(),
      start: Timestamp.optional().describe('created at or after'),
      end: Timestamp.optional().describe('created before'),
      ids: z.array(Id('ids')).max(MAX_TOOL_ROWS).optional().describe('only these observations'),
      limit: Limit,
      offset: Offset,
    }),
    async run({ caller, store }, input) {
      const { observations, total } = await listObservations(store, caller.orgId, input);
      return { observations: observations.map(({ org_id: _org, ...o }) => o), total, limit: input.limit, offset: input.offset };
    },
  }),
  defineTool({
    name: 'graph_neighbours',
    title: "A node's neighbours in the graph",
    description:
      'The entities connected to one node of the knowledge graph (an IP address, domain, host, user or email) and how: communicates_with, resolved_to, authenticated_as, member_of, related_to, with first and last sighting and how many artifacts showed it. Give the node id, or its exact value (and type when the value is ambiguous).',
    permission: 'graph:read',
    effect: 'read',
    input: z
      .strictObject({
        node_id: Id('node_id').optional(),
        value: z.string().min(1).max(512).optional().describe('the exact value, e.g. 203.0.113.7 or alice'),
        type: z.enum(NODE_TYPES).optional(),
        limit: Limit,
      })
      .refine((i) => i.node_id !== undefined || i.value !== undefined, 'give node_id or value'),
    async run({ caller, store, scopes, reads }, input) {
      let nodeId = input.node_id;
      if (!nodeId) {
        const wanted = input.value!.toLowerCase();
        const { nodes } = await listNodes(store, caller.orgId, scopes, { type: input.type, value: input.value, flags: {}, limit: MAX_TOOL_ROWS, offset: 0 });
        const exact = nodes.filter((n) => n.value.toLowerCase() === wanted);
        if (exact.length === 0) throw new ToolError(`no node has the value ${input.value}`);
        if (exact.length > 1) throw new ToolError(`several nodes have the value ${input.value} (${exact.map((n) => n.type).join(', ')}): give the type`);
        nodeId = exact[0]!.id;
      }
      const node = await reads.node(caller.orgId, nodeId, input.limit);
      if (!node) throw new ToolError(`no node with id ${nodeId}`);
      const { edges } = node;
      const others = await nodeSummaries(store, caller.orgId, edges.map((e) => (e.source_id === node.id ? e.target_id : e.source_id)));
      const neighbours = edges.map((edge) => {
        const outgoing = edge.source_id === node.id;
        const otherId = outgoing ? edge.target_id : edge.source_id;
        return { edge_id: edge.id, relation: edge.type, direction: outgoing ? 'outgoing' : 'incoming', node: others.get(otherId) ?? { id: otherId, type: 'unknown', value: '' } };
      });
      const { edges: _edges, ...summary } = node;
      return { node: summary, neighbours, total: node.edge_count };
    },
  }),
  defineTool({
    name: 'get_report',
    title: 'Get a report',
    description: `A report over a period (default the last 30 days): ${REPORT_TYPES.join(', ')} (docs/reports.md): incidents by severity and status, true/false positives, time to detect and resolve, top attackers and targets; compliance per framework; effectiveness per source and rule; cost and savings.`,
    permission: 'reports:read',
    effect: 'read',
    input: z.strictObject({ type: z.enum(REPORT_TYPES), start: Timestamp.optional().describe('default: 30 days before end'), end: Timestamp.optional().describe('default: now') }),
    async run({ caller, store, scopes }, input) {
      const period = defaultPeriod(input.start, input.end);
      const problem = periodProblem(period);
      if (problem) throw new ToolError(problem);
      const { report } = await runReport({ store, orgId: caller.orgId, scopes }, input.type, period, {});
      return { type: input.type, period, report };
    },
  }),
  defineTool({
    name: 'lookup_indicators',
    title: 'Look up threat intel indicators',
    description:
      "Look a value up in cairn's threat intel library (docs/threat-intel.md): an address (also finds the CIDR indicators holding it), domain, URL, hash or email address, exactly or as a prefix. Answers each indicator with its type, feeds, confidence, current score, status (active, expired, decayed), labels, validity and its latest sightings in cairn's data (artifact ids and times).",
    permission: 'threatfeed:read',
    effect: 'read',
    input: z.strictObject({
      value: z.string().trim().min(1).max(4096).describe('the value to look up, e.g. 203.0.113.7, evil.example, a SHA-256'),
      match: z.enum(['exact', 'prefix']).default('exact'),
      type: z.enum(INDICATOR_TYPES).optional().describe('only indicators of this type'),
      seen: z.boolean().optional().describe('true: only indicators seen in our data; false: only those never seen'),
      limit: Limit,
      offset: Offset,
    }),
    async run({ caller, reads }, input) {
      const { indicators, total } = await reads.indicators(caller.orgId, input);
      return { indicators, total, limit: input.limit, offset: input.offset };
    },
  }),
];
