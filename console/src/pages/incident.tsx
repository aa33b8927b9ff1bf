// One incident: what it is, its nodes and observations, its status history,
// and (for roles with incidents:write) the status change.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { can } from '../session.ts';
import { Time } from '../time.tsx';
import { STATUSES, type Incident } from './incidents.tsx';

interface IncidentDetail extends Incident {
  classification: string | null;
  nodes: Array<{ id: string; type: string; value: string }>;
  observations: Array<{ id: string; type: string; description: string; severity: string }>;
  status_history: Array<{ from_status: number; to_status: number; changed_by: string; changed_at: string }>;
}

const statusName = (value: number) => STATUSES.find((s) => s.value === value)?.name ?? String(value);

function StatusChange({ incident, onChanged }: { incident: IncidentDetail; onChanged: () => void }) {
  const chosen = useSignal(String(incident.status));
  const busy = useSignal(false);
  const result = useSignal<{ ok: boolean; text: string } | null>(null);

  async function submit(event: Event) {
    event.preventDefault();
    busy.value = true;
    try {
      const { message } = await api('PUT', `/v1/incidents/${encodeURIComponent(incident.id)}/status`, { body: { status: Number(chosen.value) } });
      result.value = { ok: true, text: message };
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
  return (
    <section aria-labelledby="page-title" class="incident">
      <p>
        <a href="/incidents">← Incidents</a>
      </p>
      <h1 id="page-title">{data.title}</h1>
      <dl class="facts">
        <dt>Severity</dt>
        <dd>
          <span class={`severity severity-${data.severity}`}>{data.severity}</span>
        </dd>
        <dt>Status</dt>
        <dd data-testid="incident-status">{data.status_name}</dd>
        <dt>Size</dt>
        <dd>
          {data.artifact_count} artifacts, {data.node_count} nodes
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
      <h2>Observations</h2>
      {data.observations.length === 0 ? (
        <p class="empty">No observations.</p>
      ) : (
        <ul class="plain">
          {data.observations.map((o) => (
            <li key={o.id}>
              <span class={`severity severity-${o.severity}`}>{o.severity}</span> <strong>{o.type}</strong>: {o.description}
            </li>
          ))}
        </ul>
      )}
      <h2>Nodes</h2>
      {data.nodes.length === 0 ? (
        <p class="empty">No nodes.</p>
      ) : (
        <ul class="plain">
          {data.nodes.map((n) => (
            <li key={n.id}>
              <span class="node-type">{n.type}</span> <code>{n.value}</code>
            </li>
          ))}
        </ul>
      )}
      <h2>Status history</h2>
      {data.status_history.length === 0 ? (
        <p class="empty">The status has not changed since the incident was raised.</p>
      ) : (
        <ol class="plain">
          {data.status_history.map((h) => (
            <li key={h.changed_at + h.to_status}>
              <Time iso={h.changed_at} />: {statusName(h.from_status)} → {statusName(h.to_status)} by {h.changed_by}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
