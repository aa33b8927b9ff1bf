// One incident: its facts, its leads and observations on a timeline, the
// nodes involved (flags, GeoIP/ASN), the evidence artifacts, its status
// history with who and why, and (for roles with incidents:write) the status
// change with a note.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { can } from '../session.ts';
import { Time } from '../time.tsx';
import { Evidence } from '../evidence.tsx';
import { FlagList, nodeHref, Whereabouts, type GraphNode } from '../graph-node.tsx';
import { SeverityBadge } from '../severity.tsx';
import { STATUSES, type Incident } from './incidents.tsx';

interface Lead {
  id: string;
  rule_name: string;
  severity: string;
  observation_id: string;
  node_ids: string[];
  artifact_ids: string[];
  first_seen: string;
  last_seen: string;
}

interface IncidentDetail extends Incident {
  classification: string | null;
  nodes: GraphNode[];
  observations: Array<{ id: string; type: string; description: string; severity: string; created_at: string }>;
  leads: Lead[];
  status_history: Array<{ from_status: number; to_status: number; changed_by: string; changed_by_name: string | null; changed_at: string; note: string }>;
}

const statusName = (value: number) => STATUSES.find((s) => s.value === value)?.name ?? String(value);
const NOTE_LIMIT = 2000;

function StatusChange({ incident, onChanged }: { incident: IncidentDetail; onChanged: () => void }) {
  const chosen = useSignal(String(incident.status));
  const note = useSignal('');
  const busy = useSignal(false);
  const result = useSignal<{ ok: boolean; text: string } | null>(null);

  async function submit(event: Event) {
    event.preventDefault();
    busy.value = true;
    try {
      const body = { status: Number(chosen.value), ...(note.value.trim() ? { note: note.value.trim() } : {}) };
      const { message } = await api('PUT', `/v1/incidents/${encodeURIComponent(incident.id)}/status`, { body });
      result.value = { ok: true, text: message };
      note.value = '';
      onChanged();
    } catch (err) {
      result.value = { ok: false, text: err instanceof ApiError ? err.message : String(err) };
    } finally {
      busy.value = false;
    }
  }

  return (
    <form class="status-change" onSubmit={submit} aria-labelledby="status-change-title">
      <h2 id="status-change-title">Change status</h2>
      <label for="new-status">New status</label>
      <select id="new-status" value={chosen.value} onChange={(e) => (chosen.value = e.currentTarget.value)}>
        {STATUSES.map((s) => (
          <option key={s.value} value={String(s.value)}>
            {s.name}
          </option>
        ))}
      </select>
      <label for="status-note">Note (optional)</label>
      <textarea id="status-note" rows={2} maxLength={NOTE_LIMIT} value={note.value} onInput={(e) => (note.value = e.currentTarget.value)} placeholder="Why: what was found, what was done" />
      <button type="submit" disabled={busy.value}>
        Set status
      </button>
      {result.value && (
        <p class={result.value.ok ? 'notice' : 'error'} role={result.value.ok ? 'status' : 'alert'}>
          {result.value.text}
        </p>
      )}
    </form>
  );
}

interface TimelineEntry {
  at: string;
  kind: 'Lead' | 'Observation';
  id: string;
  severity: string;
  text: string;
  detail: string | null;
}

/**
 * Leads (at their first event) and observations (at their time) in one list,
 * oldest first. A lead and the observation its firing wrote are one entry:
 * the rule, and the observation's words for what it saw.
 */
function timelineOf(incident: IncidentDetail): TimelineEntry[] {
  const observations = new Map(incident.observations.map((o) => [o.id, o]));
  const leads: TimelineEntry[] = incident.leads.map((l) => ({
    at: l.first_seen,
    kind: 'Lead',
    id: l.id,
    severity: l.severity,
    text: l.rule_name,
    detail: observations.get(l.observation_id)?.description ?? `${l.artifact_ids.length} artifact${l.artifact_ids.length === 1 ? '' : 's'}`,
  }));
  const ownObservations: TimelineEntry[] = incident.observations
    .filter((o) => !incident.leads.some((l) => l.observation_id === o.id))
    .map((o) => ({ at: o.created_at, kind: 'Observation', id: o.id, severity: o.severity, text: o.description, detail: o.type }));
  return [...leads, ...ownObservations].sort((a, b) => a.at.localeCompare(b.at) || a.kind.localeCompare(b.kind));
}

function Timeline({ incident }: { incident: IncidentDetail }) {
  const entries = timelineOf(incident);
  if (entries.length === 0) return <p class="empty">No leads or observations.</p>;
  return (
    <ol class="timeline" aria-label="Leads and observations, oldest first">
      {entries.map((e) => (
        <li key={`${e.kind}-${e.id}`} class={`timeline-${e.severity}`}>
          <Time iso={e.at} /> <span class="tag">{e.kind}</span> <SeverityBadge severity={e.severity} /> <strong>{e.text}</strong>
          {e.detail && <div class="timeline-detail">{e.detail}</div>}
        </li>
      ))}
    </ol>
  );
}

function NodeTable({ nodes, total }: { nodes: GraphNode[]; total: number }) {
  if (nodes.length === 0) return <p class="empty">No nodes.</p>;
  return (
    <>
      <table class="nodes">
        <caption class="visually-hidden">Nodes involved</caption>
        <thead>
          <tr>
            <th scope="col">Type</th>
            <th scope="col">Value</th>
            <th scope="col">Country and AS</th>
            <th scope="col">Flags</th>
          </tr>
        </thead>
        <tbody>
          {nodes.map((n) => (
            <tr key={n.id}>
              <td>{n.type}</td>
              <td>
                <a href={nodeHref(n.id)}>
                  <code>{n.value}</code>
                </a>
              </td>
              <td>
                <Whereabouts node={n} />
              </td>
              <td>
                <FlagList node={n} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {total > nodes.length && <p class="status">The first {nodes.length} of {total.toLocaleString()} nodes.</p>}
    </>
  );
}

export function IncidentPage({ id }: { id: string }) {
  const incident = useSignal<IncidentDetail | null>(null);
  const error = useSignal<string | null>(null);
  const version = useSignal(0);

  useEffect(() => {
    const controller = new AbortController();
    api<IncidentDetail>('GET', `/v1/incidents/${encodeURIComponent(id)}`, { signal: controller.signal })
      .then(({ data }) => (incident.value = data))
      .catch((err: unknown) => {
        if (!controller.signal.aborted) error.value = err instanceof ApiError ? err.message : String(err);
      });
    return () => controller.abort();
  }, [id, version.value]);

  const data = incident.value;
  if (error.value) {
    return (
      <section aria-labelledby="page-title">
        <h1 id="page-title">Incident</h1>
        <p class="error" role="alert">
          {error.value}
        </p>
        <p>
          <a href="/incidents">Back to incidents</a>
        </p>
      </section>
    );
  }
  if (!data) return <p role="status">Loading…</p>;
  const evidence = [...new Set(data.leads.flatMap((l) => l.artifact_ids))];
  return (
    <section aria-labelledby="page-title" class="incident">
      <p>
        <a href="/incidents">← Incidents</a>
      </p>
      <h1 id="page-title">{data.title}</h1>
      <dl class="facts">
        <dt>Severity</dt>
        <dd>
          <SeverityBadge severity={data.severity} />
        </dd>
        <dt>Status</dt>
        <dd data-testid="incident-status">{data.status_name}</dd>
        <dt>Size</dt>
        <dd>
          {data.artifact_count} artifacts, {data.node_count} nodes, {data.leads.length} leads
        </dd>
        <dt>First seen</dt>
        <dd>
          <Time iso={data.first_seen} />
        </dd>
        <dt>Last seen</dt>
        <dd>
          <Time iso={data.last_seen} />
        </dd>
      </dl>
      {can('incidents:write') && <StatusChange incident={data} onChanged={() => (version.value += 1)} />}
      <h2>Timeline</h2>
      <Timeline incident={data} />
      <h2>Nodes</h2>
      <NodeTable nodes={data.nodes} total={data.node_count} />
      <h2>Evidence</h2>
      <Evidence ids={evidence} label="Evidence artifacts" />
      <h2>Status history</h2>
      {data.status_history.length === 0 ? (
        <p class="empty">The status has not changed since the incident was raised.</p>
      ) : (
        <ol class="plain" aria-label="Status history">
          {data.status_history.map((h) => (
            <li key={h.changed_at + h.to_status}>
              <Time iso={h.changed_at} />: {statusName(h.from_status)} → {statusName(h.to_status)} by{' '}
              <span title={h.changed_by}>{h.changed_by_name ?? h.changed_by}</span>
              {h.note && <blockquote class="note">{h.note}</blockquote>}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
