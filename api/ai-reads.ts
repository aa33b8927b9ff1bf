// The read paths of the API as the AI tools use them (ai/tools/types.ts):
// the very functions the routes answer with, so a tool and its route agree.
import type { ApiReads } from '../ai/tools/types.js';
import { ToolError } from '../ai/tools/types.js';
import { listIncidents } from '../clickhouse/tables/incidents.js';
import { QuerySyntaxError } from '../query/parse.js';
import type { ApiDeps } from './deps.js';
import { nodeWithEdges } from './routes/graph.js';
import { incidentDetail, presentIncident } from './routes/incidents.js';
import { searchIndicators } from './routes/threatfeed.js';
import { searchArtifactPage } from './search-sql.js';

export function apiReads(deps: Pick<ApiDeps, 'store' | 'config'>): ApiReads {
  return {
    async searchArtifacts(orgId, request) {
      try {
        // The tool pages like the route; an exact total is not worth the scan to a model.
        return await searchArtifactPage(deps.store, { orgId, ...request, exactTotal: false });
      } catch (err) {
        if (err instanceof QuerySyntaxError) throw new ToolError(`invalid query: ${err.message} (docs/query-language.md)`);
        throw err;
      }
    },
    async listIncidents(orgId, filter) {
      const { incidents, total } = await listIncidents(deps.store, orgId, filter);
      return { incidents: incidents.map(presentIncident), total };
    },
    incident: (orgId, id) => incidentDetail(deps.store, orgId, id),
    node: (orgId, id, edgeLimit) => nodeWithEdges(deps.store, orgId, deps.config.graph, id, edgeLimit),
    indicators: (orgId, lookup) => searchIndicators(deps, orgId, lookup),
  };
}
