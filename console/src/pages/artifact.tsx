// One artifact beside the search results: its raw text (always as text, never
// as markup: a log line holding <script> shows those characters) and its
// parsed fields. Esc or the Close button closes it and gives focus back.
import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { Time } from '../time.tsx';
import { can } from '../session.ts';
import { nodeHref } from '../graph-node.tsx';
import { ErrorLine } from '../messages.tsx';

export interface Artifact {
  id: string;
  source: string;
  raw: string;
  timestamp: string;
  created_at: string;
  metadata: Record<string, unknown>;
  /** The chosen columns' parsed fields, when the search asked for them. */
  fields?: Record<string, string[]>;
}

interface MadeNode {
  id: string;
  type: string;
  value: string;
  field: string;
}

interface ParsedEvent {
  parser: string;
  fields: Record<string, string[]>;
}

/** Flattens nested metadata to dotted names, the way fields are named in queries. */
function fieldRows(value: unknown, prefix = '', rows: Array<[string, string]> = []): Array<[string, string]> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, inner] of Object.entries(value)) fieldRows(inner, prefix ? `${prefix}.${key}` : key, rows);
  } else if (prefix) {
    rows.push([prefix, typeof value === 'string' ? value : JSON.stringify(value)]);
  }
  return rows;
}

export function ArtifactPanel({ id, known, onClose }: { id: string; known: Artifact | null; onClose: () => void }) {
  const fetched = useSignal<Artifact | null>(null);
  const error = useSignal<string | null>(null);
  /** undefined while asked; null when the artifact has no parsed event. */
  const parsed = useSignal<ParsedEvent | null | undefined>(undefined);
  /** undefined while asked; null when it cannot be told (no parsed event, or no graph:read). */
  const nodes = useSignal<MadeNode[] | null | undefined>(undefined);
  const heading = useRef<HTMLHeadingElement>(null);
  const artifact = known ?? fetched.value;

  // Opened from a shared link the artifact may be on no page of the results: ask for it by id.
  useEffect(() => {
    if (known) return;
    const controller = new AbortController();
    fetched.value = null;
    error.value = null;
    api<{ artifacts: Artifact[] }>('GET', '/v1/artifacts', { query: { query: `id:"${id.replace(/["\\]/g, '\\$&')}"`, limit: 1 }, signal: controller.signal })
      .then(({ data }) => {
        if (data.artifacts[0]) fetched.value = data.artifacts[0];
        else error.value = 'No artifact has this id (or it is not yours to see).';
      })
      .catch((err: unknown) => {
        if (!controller.signal.aborted) error.value = err instanceof ApiError ? err.message : String(err);
      });
    return () => controller.abort();
  }, [id, known]);

  useEffect(() => {
    const controller = new AbortController();
    parsed.value = undefined;
    api<ParsedEvent>('GET', `/v1/artifacts/${encodeURIComponent(id)}/event`, { signal: controller.signal })
      .then(({ data }) => (parsed.value = data))
      .catch(() => {
        if (!controller.signal.aborted) parsed.value = null;
      });
    return () => controller.abort();
  }, [id]);

  useEffect(() => {
    nodes.value = undefined;
    if (!can('graph:read')) return void (nodes.value = null);
    const controller = new AbortController();
    api<{ nodes: MadeNode[] }>('GET', `/v1/artifacts/${encodeURIComponent(id)}/nodes`, { signal: controller.signal })
      .then(({ data }) => (nodes.value = data.nodes))
      .catch(() => {
        if (!controller.signal.aborted) nodes.value = null;
      });
    return () => controller.abort();
  }, [id]);

  useEffect(() => heading.current?.focus(), [id]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') onClose();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [onClose]);

  const metadata = artifact ? fieldRows(artifact.metadata) : [];
  const fields = parsed.value ? Object.entries(parsed.value.fields).sort(([a], [b]) => a.localeCompare(b)) : [];
  return (
    <aside class="detail" aria-labelledby="detail-title">
      <div class="detail-head">
        <h2 id="detail-title" tabIndex={-1} ref={heading}>
          Artifact
        </h2>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      <ErrorLine message={error.value} />
      {!artifact && !error.value && <p role="status">Loading…</p>}
      {artifact && (
        <>
          <dl class="facts">
            <dt>Time</dt>
            <dd>
              <Time iso={artifact.timestamp} />
            </dd>
            <dt>Source</dt>
            <dd>{artifact.source}</dd>
            <dt>Id</dt>
            <dd>
              <code>{artifact.id}</code>
            </dd>
          </dl>
          <h3>Raw text</h3>
          <pre class="raw-text" aria-label="Raw text">{artifact.raw}</pre>
          <h3>Parsed fields</h3>
          {parsed.value === undefined && <p role="status">Loading…</p>}
          {parsed.value === null && <p class="empty">No parsed fields: no parser read this line (or it is still being parsed).</p>}
          {parsed.value && (
            <table class="fields">
              <caption class="visually-hidden">Parsed fields, read by {parsed.value.parser}</caption>
              <thead>
                <tr>
                  <th scope="col">Field</th>
                  <th scope="col">Value</th>
                </tr>
              </thead>
              <tbody>
                {fields.map(([name, values]) => (
                  <tr key={name}>
                    <th scope="row">
                      <code>{name}</code>
                    </th>
                    <td>{values.join(', ')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {nodes.value && (
            <>
              <h3>Nodes it made</h3>
              {nodes.value.length === 0 ? (
                <p class="empty">None: no field of this artifact names an address, host, user, domain or email.</p>
              ) : (
                <ul class="plain" aria-label="Nodes it made">
                  {nodes.value.map((n) => (
                    <li key={n.id}>
                      <span class="node-type">{n.type}</span>{' '}
                      <a href={nodeHref(n.id)}>
                        <code>{n.value}</code>
                      </a>{' '}
                      <span class="empty">from {n.field}</span>
                    </li>
                  ))}
                </ul>
              )}
            </>
          )}
          {metadata.length > 0 && (
            <>
              <h3>Metadata</h3>
              <table class="fields">
                <caption class="visually-hidden">Metadata sent with the artifact</caption>
                <tbody>
                  {metadata.map(([name, value]) => (
                    <tr key={name}>
                      <th scope="row">
                        <code>{name}</code>
                      </th>
                      <td>{value}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          )}
        </>
      )}
    </aside>
  );
}
