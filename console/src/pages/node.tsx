// One graph node (/nodes/<id>): its facts (type, value, GeoIP/ASN, flags),
// where it was sighted (the leads and observations naming it, the artifacts
// holding its value), its edges to other nodes, and the incidents it is in.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { Time } from '../time.tsx';
import { FlagList, nodeHref, Whereabouts, type GraphNode } from '../graph-node.tsx';
import { SeverityBadge } from '../severity.tsx';
import { searchUrl } from './search-state.ts';
import type { Incident } from './incidents.tsx';
import type { Artifact } from './artifact.tsx';
import { artifactHref } from '../evidence.tsx';
import { graphUrl } from './graph.tsx';

interface NodeSummary {
  id: string;
  type: string;
  value: string;
}

interface NodeDetail extends GraphNode {
  edges: Array<{ id: string; type: string; source_id: string; target_id: string; source: NodeSummary; target: NodeSummary }>;
}

interface ListedLead {
  id: string;
  rule_name: string;
  severity: string;
  first_seen: string;
  incident_id: string | null;
}

interface ListedObservation {
  id: string;
  type: string;
  description: string;
  severity: string;
  created_at: string;
}

/** Rows of each list shown here; each says how many there are in all. */
const SHOWN = 20;

/** A search for the node's value as a phrase: the artifacts whose text names it. */
const valueQuery = (value: string) => `"${value.replace(/["\\]/g, '\\$&')}"`;

/** A page of one of the API's lists (its items under `field`, and `total`); `key` changes when the list asked for does, and an empty key asks nothing yet. */
function useList<T>(path: string, field: string, query: Record<string, string | number>, key: string): { items: T[] | null; total: number; error: string | null } {
  const state = useSignal<{ items: T[] | null; total: number; error: string | null }>({ items: null, total: 0, error: null });
  useEffect(() => {
    state.value = { items: null, total: 0, error: null };
    if (!key) return;
    const controller = new AbortController();
    api<Record<string, unknown>>('GET', path, { query, signal: controller.signal })
      .then(({ data }) => {
        const items = data[field] as T[];
        state.value = { items, total: Number(data.total ?? items.length), error: null };
      })
      .catch((err: unknown) => {
        if (!controller.signal.aborted) state.value = { items: [], total: 0, error: err instanceof ApiError ? err.message : String(err) };
      });
    return () => controller.abort();
  }, [key]);
  return state.value;
}

function Count({ shown, total, noun }: { shown: number; total: number; noun: string }) {
  return total > shown ? (
    <p class="status">
      The newest {shown} of {total.toLocaleString()} {noun}.
    </p>
  ) : null;
}

function ListError({ error }: { error: string | null }) {
  return error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;
}

export function NodePage({ id }: { id: string }) {
  const node = useSignal<NodeDetail | null>(null);
  const error = useSignal<string | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    node.value = null;
    error.value = null;
    api<NodeDetail>('GET', `/v1/nodes/${encodeURIComponent(id)}`, { signal: controller.signal })
      .then(({ data }) => (node.value = data))
      .catch((err: unknown) => {
        if (!controller.signal.aborted) error.value = err instanceof ApiError ? err.message : String(err);
      });
    return () => controller.abort();
  }, [id]);

  const byNode = { node_id: id, limit: SHOWN };
  const incidents = useList<Incident>('/v1/incidents', 'incidents', byNode, `i${id}`);
  const leads = useList<ListedLead>('/v1/leads', 'leads', byNode, `l${id}`);
  const observations = useList<ListedObservation>('/v1/observations', 'observations', byNode, `o${id}`);
  const value = node.value?.value ?? '';
  const artifacts = useList<Artifact>('/v1/artifacts', 'artifacts', { query: valueQuery(value), limit: SHOWN }, value ? `a${value}` : '');

  if (error.value) {
    return (
      <section aria-labelledby="page-title">
        <h1 id="page-title">Node</h1>
        <p class="error" role="alert">
          {error.value}
        </p>
      </section>
    );
  }
  const data = node.value;
  if (!data) return <p role="status">Loading…</p>;
  return (
    <section aria-labelledby="page-title" class="node">
      <h1 id="page-title">
        <span class="node-type">{data.type}</span> <code>{data.value}</code>
      </h1>
      <p>
        <a href={graphUrl({ nodeId: data.id })}>Explore graph</a>
      </p>
      <dl class="facts">
        <dt>Type</dt>
        <dd>{data.type}</dd>
        <dt>Value</dt>
        <dd>
          <code>{data.value}</code>
        </dd>
        <dt>Country and AS</dt>
        <dd>
          <Whereabouts node={data} />
        </dd>
        <dt>Flags</dt>
        <dd>
          <FlagList node={data} />
        </dd>
        <dt>First seen</dt>
        <dd>
          <Time iso={data.created_at} />
        </dd>
        <dt>Edges</dt>
        <dd>{data.edge_count.toLocaleString()}</dd>
      </dl>

      <h2>Incidents</h2>
      <ListError error={incidents.error} />
      {incidents.items && incidents.items.length === 0 && !incidents.error && <p class="empty">This node is in no incident.</p>}
      {incidents.items && incidents.items.length > 0 && (
        <ul class="plain" aria-label="Incidents holding this node">
          {incidents.items.map((i) => (
            <li key={i.id}>
              <SeverityBadge severity={i.severity} /> <a href={`/incidents/${encodeURIComponent(i.id)}`}>{i.title}</a> <span class="empty">· {i.status_name}</span>
            </li>
          ))}
        </ul>
      )}
      {incidents.items && <Count shown={incidents.items.length} total={incidents.total} noun="incidents" />}

      <h2>Sightings</h2>
      <h3>Leads</h3>
      <ListError error={leads.error} />
      {leads.items && leads.items.length === 0 && !leads.error && <p class="empty">No lead names this node.</p>}
      {leads.items && leads.items.length > 0 && (
        <ul class="plain" aria-label="Leads naming this node">
          {leads.items.map((l) => (
            <li key={l.id}>
              <Time iso={l.first_seen} /> <SeverityBadge severity={l.severity} /> {l.rule_name}
              {l.incident_id && (
                <>
                  {' · '}
                  <a href={`/incidents/${encodeURIComponent(l.incident_id)}`}>its incident</a>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
      {leads.items && <Count shown={leads.items.length} total={leads.total} noun="leads" />}
      <h3>Observations</h3>
      <ListError error={observations.error} />
      {observations.items && observations.items.length === 0 && !observations.error && <p class="empty">No observation names this node.</p>}
      {observations.items && observations.items.length > 0 && (
        <ul class="plain" aria-label="Observations naming this node">
          {observations.items.map((o) => (
            <li key={o.id}>
              <Time iso={o.created_at} /> <SeverityBadge severity={o.severity} /> <strong>{o.type}</strong>: {o.description}
            </li>
          ))}
        </ul>
      )}
      {observations.items && <Count shown={observations.items.length} total={observations.total} noun="observations" />}
      <h3>Artifacts</h3>
      <ListError error={artifacts.error} />
      {artifacts.items && artifacts.items.length === 0 && !artifacts.error && <p class="empty">No stored artifact holds this value.</p>}
      {artifacts.items && artifacts.items.length > 0 && (
        <table class="results">
          <caption class="visually-hidden">Artifacts holding this value, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Source</th>
              <th scope="col">Raw text</th>
            </tr>
          </thead>
          <tbody>
            {artifacts.items.map((a) => (
              <tr key={a.id}>
                <td class="nowrap">
                  <Time iso={a.timestamp} />
                </td>
                <td>{a.source}</td>
                <td class="raw">
                  <a href={artifactHref(a.id)}>{a.raw}</a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p>
        <a href={searchUrl({ q: valueQuery(data.value), range: 'all', from: null, to: null, offset: 0, artifact: null })}>Search every artifact holding {data.value}</a>
      </p>

      <h2>Edges</h2>
      {data.edges.length === 0 ? (
        <p class="empty">No edges.</p>
      ) : (
        <table class="edges">
          <caption class="visually-hidden">Edges to other nodes, most recently seen first</caption>
          <thead>
            <tr>
              <th scope="col">Relation</th>
              <th scope="col">Other node</th>
            </tr>
          </thead>
          <tbody>
            {data.edges.map((e) => {
              const outgoing = e.source_id === data.id;
              const other = outgoing ? e.target : e.source;
              return (
                <tr key={e.id}>
                  <td>{outgoing ? `${e.type.replace(/_/g, ' ')} →` : `← ${e.type.replace(/_/g, ' ')}`}</td>
                  <td>
                    <span class="node-type">{other.type}</span>{' '}
                    <a href={nodeHref(other.id)}>
                      <code>{other.value || other.id}</code>
                    </a>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {data.edge_count > data.edges.length && <p class="status">The {data.edges.length} most recently seen of {data.edge_count.toLocaleString()} edges.</p>}
    </section>
  );
}
