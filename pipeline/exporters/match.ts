// Which artifacts an exporter forwards: its source filter and its query,
// with the meaning search and lead rules give the query (query/match.ts).
// Words and phrases test the raw text; a field test other than `source` and
// `id` needs the parsed fields, so only then is the artifact parsed here
// (with GeoIP, as the parser stage does): an exporter on raw text costs no parsing.
import type { Artifact } from '../../clickhouse/tables/artifacts.js';
import { ARTIFACT_FIELDS, isFieldNode, walk, type QueryNode } from '../../query/ast.js';
import { compileMatcher, PreparedTarget } from '../../query/match.js';
import { parseQuery } from '../../query/parse.js';
import type { FieldValue } from '../../topics/index.js';
import { addGeoFields } from '../geoip/annotate.js';
import { geoIp } from '../geoip/geoip.js';
import { parseRaw } from '../parser/registry.js';

function usesParsedFields(tree: QueryNode): boolean {
  let uses = false;
  walk(tree, (node) => {
    if (isFieldNode(node) && !(ARTIFACT_FIELDS as readonly string[]).includes(node.field)) uses = true;
  });
  return uses;
}

function parsedFields(artifact: Artifact, timezone: string): Record<string, FieldValue> {
  try {
    const { fields } = parseRaw(artifact.raw, { source: artifact.source, receivedAt: Date.parse(artifact.created_at), timezone });
    addGeoFields(fields, geoIp());
    return fields;
  } catch {
    return {}; // a line no parser reads has no fields: only its text, source and id can match
  }
}

/** The exporter's filter as a predicate; throws QuerySyntaxError for a query that does not parse. */
export function artifactFilter(filter: { query: string; source: string | null }, timezone: string): (artifact: Artifact) => boolean {
  const tree = parseQuery(filter.query);
  const matches = compileMatcher(tree);
  const needsFields = usesParsedFields(tree);
  return (artifact) => {
    if (filter.source !== null && artifact.source !== filter.source) return false;
    const fields = needsFields ? parsedFields(artifact, timezone) : {};
    return matches(new PreparedTarget({ id: artifact.id, source: artifact.source, raw: artifact.raw, fields }));
  };
}
