// One lead rule (/rules/<id>, or /rules/new): its editor, with a live
// preview as it is edited (POST /v1/lead-rules/test: the events it matches
// and the leads it would raise over a chosen range, before saving), its
// firings per day, export as Sigma, and a backfill followed to its end.
import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { api, ApiError, download } from '../api.ts';
import { navigate } from '../router.ts';
import { can } from '../session.ts';
import { QueryBox } from '../query-box.tsx';
import { SEVERITIES } from '../severity.tsx';
import { Time } from '../time.tsx';
import { OriginLabel, RulesTabs, type FiringDay, type LeadRule, type RuleConditions } from './rules.tsx';
import { ErrorLine } from '../messages.tsx';

/** How long the editor waits after the last keystroke before asking for a preview. */
const PREVIEW_DELAY_MS = 400;
const BACKFILL_POLL_MS = 1000;

const PREVIEW_RANGES = [
  { key: '24h', label: 'Last 24 hours', ms: 86_400_000 },
  { key: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
  { key: '30d', label: 'Last 30 days', ms: 30 * 86_400_000 },
] as const;

/** The conditions the form edits; the others (sequence, first_seen, ...) are kept as stored. */
const EDITED_KEYS = ['source', 'pattern', 'threshold', 'window', 'group_by'] as const;

interface Draft {
  name: string;
  description: string;
  severity: string;
  enabled: boolean;
  source: string;
  pattern: string;
  threshold: string;
  window: string;
  group_by: string;
}

interface Trial {
  events: number;
  leads: number;
  windows: number;
  samples: Array<{ artifact_id: string; timestamp: string; source: string; raw: string }>;
  took_ms: number;
  approximation: string | null;
}

interface BackfillJob {
  id: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  progress: number;
  events_total: number | null;
  events_done: number;
  matched: number;
  raised: number;
  already_raised: number;
  error: string;
  start: string;
  end: string;
}

const EMPTY_DRAFT: Draft = { name: '', description: '', severity: 'medium', enabled: true, source: '', pattern: '', threshold: '', window: '', group_by: '' };

function draftOf(rule: LeadRule): Draft {
  const c = rule.conditions;
  return {
    name: rule.name,
    description: rule.description,
    severity: rule.severity,
    enabled: rule.enabled,
    source: c.source ?? '',
    pattern: c.pattern,
    threshold: c.threshold === undefined ? '' : String(c.threshold),
    window: c.window ?? '',
    group_by: c.group_by ?? '',
  };
}

/** The edited conditions as the API takes them: a value, or null to remove the key (an empty field). */
function editedConditions(draft: Draft): Record<string, string | number | null> {
  const threshold = draft.threshold.trim() === '' ? null : Number(draft.threshold);
  return {
    source: draft.source.trim() || null,
    pattern: draft.pattern,
    threshold: threshold !== null && Number.isFinite(threshold) ? threshold : null,
    window: draft.window.trim() || null,
    group_by: draft.group_by.trim() || null,
  };
}

/** A new rule's conditions: only the keys given. */
function wholeConditions(draft: Draft): Record<string, string | number> {
  return Object.fromEntries(Object.entries(editedConditions(draft)).filter(([, v]) => v !== null)) as Record<string, string | number>;
}

const errorText = (err: unknown) => (err instanceof ApiError ? err.message : String(err));

export function RulePage({ id }: { id: string | null }) {
  const rule = useSignal<(LeadRule & { firings_by_day: FiringDay[] }) | null>(null);
  const draft = useSignal<Draft>(EMPTY_DRAFT);
  const loadError = useSignal<string | null>(null);
  const saveState = useSignal<{ error: string | null; message: string | null; busy: boolean }>({ error: null, message: null, busy: false });
  const manage = can('signals:manage');
  const patternInput = useRef<HTMLInputElement>(null);

  useEffect(() => {
    rule.value = null;
    draft.value = EMPTY_DRAFT;
    saveState.value = { error: null, message: null, busy: false };
    if (!id) return;
    const controller = new AbortController();
    api<LeadRule & { firings_by_day: FiringDay[] }>('GET', `/v1/lead-rules/${id}`, { signal: controller.signal })
      .then(({ data }) => {
        rule.value = data;
        draft.value = draftOf(data);
        loadError.value = null;
      })
      .catch((err: unknown) => {
        if (!controller.signal.aborted) loadError.value = errorText(err);
      });
    return () => controller.abort();
  }, [id]);

  const set = (change: Partial<Draft>) => (draft.value = { ...draft.value, ...change });

  async function save(event: Event) {
    event.preventDefault();
    const d = draft.value;
    saveState.value = { error: null, message: null, busy: true };
    try {
      const fields = { name: d.name, description: d.description, severity: d.severity, enabled: d.enabled };
      if (id) {
        const { data, message } = await api<LeadRule>('PUT', `/v1/lead-rules/${id}`, { body: { ...fields, conditions: editedConditions(d) } });
        rule.value = { ...data, firings_by_day: rule.value?.firings_by_day ?? [] };
        saveState.value = { error: null, message, busy: false };
      } else {
        const { data } = await api<{ id: string }>('POST', '/v1/lead-rules', { body: { ...fields, conditions: wholeConditions(d) } });
        navigate(`/rules/${data.id}`);
      }
    } catch (err) {
      saveState.value = { error: errorText(err), message: null, busy: false };
    }
  }

  if (id && loadError.value)
    return (
      <section aria-labelledby="page-title">
        <h1 id="page-title">Lead rule</h1>
        <p class="error" role="alert">
          {loadError.value}
        </p>
      </section>
    );
  if (id && !rule.value) return <p role="status">Loading…</p>;
  const d = draft.value;
  const stored = rule.value;
  const otherConditions = stored ? Object.fromEntries(Object.entries(stored.conditions).filter(([k]) => !(EDITED_KEYS as readonly string[]).includes(k))) : {};
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">{stored ? stored.name : 'New lead rule'}</h1>
      <RulesTabs current={id ? `/rules/${id}` : '/rules/new'} />
      {stored && (
        <dl class="facts">
          <dt>Origin</dt>
          <dd>
            <OriginLabel origin={stored.origin} />
          </dd>
          <dt>Changed</dt>
          <dd>
            <Time iso={stored.updated_at} />
          </dd>
          {stored.tags.length > 0 && (
            <>
              <dt>Tags</dt>
              <dd>{stored.tags.join(', ')}</dd>
            </>
          )}
        </dl>
      )}
      <div class="rule-layout">
        <form class="rule-editor" aria-label="Rule" onSubmit={save}>
          <fieldset disabled={!manage}>
            <legend class="visually-hidden">Rule</legend>
            <label for="rule-name">Name</label>
            <input id="rule-name" type="text" required value={d.name} onInput={(e) => set({ name: e.currentTarget.value })} />
            <label for="rule-description">Description</label>
            <textarea id="rule-description" rows={2} value={d.description} onInput={(e) => set({ description: e.currentTarget.value })} />
            <div class="row">
              <label for="rule-severity">Severity</label>
              <select id="rule-severity" value={d.severity} onChange={(e) => set({ severity: e.currentTarget.value })}>
                {SEVERITIES.map((s) => (
                  <option key={s} value={s}>
                    {s}
                  </option>
                ))}
              </select>
              <label class="inline">
                <input type="checkbox" checked={d.enabled} onChange={(e) => set({ enabled: e.currentTarget.checked })} /> Enabled
              </label>
            </div>
            <label for="rule-pattern">Pattern</label>
            <QueryBox id="rule-pattern" value={d.pattern} onInput={(pattern) => set({ pattern })} range={{ key: '7d', from: null, to: null }} invalid={false} inputRef={patternInput} placeholder='e.g. event.category:authentication event.outcome:failure' />
            <div class="row">
              <label for="rule-source">Source</label>
              <input id="rule-source" type="text" size={10} placeholder="any" value={d.source} onInput={(e) => set({ source: e.currentTarget.value })} />
              <label for="rule-threshold">Threshold</label>
              <input id="rule-threshold" type="number" min={1} size={6} value={d.threshold} onInput={(e) => set({ threshold: e.currentTarget.value })} />
              <label for="rule-window">Window</label>
              <input id="rule-window" type="text" size={6} placeholder="e.g. 5m" value={d.window} onInput={(e) => set({ window: e.currentTarget.value })} />
              <label for="rule-group-by">Group by</label>
              <input id="rule-group-by" type="text" size={12} placeholder="e.g. source.ip" value={d.group_by} onInput={(e) => set({ group_by: e.currentTarget.value })} />
            </div>
            {Object.keys(otherConditions).length > 0 && (
              <p class="status">
                Also (kept as stored): <code>{JSON.stringify(otherConditions)}</code>
              </p>
            )}
          </fieldset>
          {manage && (
            <div class="row">
              <button type="submit" disabled={saveState.value.busy || !d.name.trim() || !d.pattern.trim()}>
                {id ? 'Save rule' : 'Create rule'}
              </button>
              {saveState.value.message && (
                <span role="status" class="notice">
                  {saveState.value.message}
                </span>
              )}
            </div>
          )}
          <ErrorLine message={saveState.value.error} />
        </form>
        <Preview id={id} draft={d} />
      </div>
      {stored && <Firings days={stored.firings_by_day} />}
      {stored && <SigmaExport id={stored.id} />}
      {stored && <Backfill id={stored.id} />}
    </section>
  );
}

/** What the rule as edited would do over the chosen range, asked again a moment after each change. */
function Preview({ id, draft }: { id: string | null; draft: Draft }) {
  const range = useSignal<string>('7d');
  const trial = useSignal<Trial | null>(null);
  const error = useSignal<string | null>(null);
  const busy = useSignal(false);
  const conditions = JSON.stringify(editedConditions(draft));

  useEffect(() => {
    if (!draft.pattern.trim()) {
      trial.value = null;
      error.value = null;
      return;
    }
    const controller = new AbortController();
    const timer = setTimeout(() => {
      busy.value = true;
      const ms = PREVIEW_RANGES.find((r) => r.key === range.value)!.ms;
      const body = {
        ...(id ? { id, conditions: editedConditions(draft) } : { conditions: wholeConditions(draft) }),
        start: new Date(Date.now() - ms).toISOString(),
        samples: 5,
      };
      api<Trial>('POST', '/v1/lead-rules/test', { body, signal: controller.signal })
        .then(({ data }) => {
          trial.value = data;
          error.value = null;
        })
        .catch((err: unknown) => {
          if (!controller.signal.aborted) error.value = errorText(err);
        })
        .finally(() => {
          if (!controller.signal.aborted) busy.value = false;
        });
    }, PREVIEW_DELAY_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [id, conditions, range.value]);

  const t = trial.value;
  return (
    <section class="preview" aria-labelledby="preview-title">
      <h2 id="preview-title">Preview</h2>
      <label for="preview-range">Over</label>{' '}
      <select id="preview-range" value={range.value} onChange={(e) => (range.value = e.currentTarget.value)}>
        {PREVIEW_RANGES.map((r) => (
          <option key={r.key} value={r.key}>
            {r.label}
          </option>
        ))}
      </select>
      <p role="status" class="preview-counts" aria-busy={busy.value ? 'true' : 'false'}>
        {error.value ? '' : !t ? (draft.pattern.trim() ? 'Asking…' : 'Write a pattern to see what it matches.') : `${t.events.toLocaleString()} matching events, ${t.leads.toLocaleString()} leads`}
      </p>
      {error.value && <p class="error">{error.value}</p>}
      {t && !error.value && (
        <>
          {t.approximation && <p class="status">Approximate: {t.approximation}</p>}
          <p class="status">
            {t.windows.toLocaleString()} windows with matches; answered in {t.took_ms} ms.
          </p>
          {t.samples.length > 0 && (
            <table>
              <caption class="visually-hidden">Newest matching events</caption>
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Source</th>
                  <th scope="col">Raw</th>
                </tr>
              </thead>
              <tbody>
                {t.samples.map((s) => (
                  <tr key={s.artifact_id}>
                    <td class="nowrap">
                      <Time iso={s.timestamp} />
                    </td>
                    <td>{s.source}</td>
                    <td class="raw">
                      <a href={`/search?q=${encodeURIComponent(`id:${s.artifact_id}`)}&range=all&artifact=${encodeURIComponent(s.artifact_id)}`}>{s.raw}</a>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}

/** The rule's leads per day over the last 30 days, as bars and (for screen readers and keyboards) as a table. */
function Firings({ days }: { days: FiringDay[] }) {
  const total = days.reduce((sum, d) => sum + d.count, 0);
  const suppressed = days.reduce((sum, d) => sum + d.suppressed, 0);
  const max = Math.max(1, ...days.map((d) => d.count));
  const width = 100 / Math.max(1, days.length);
  return (
    <section aria-labelledby="firings-title">
      <h2 id="firings-title">Firings, last 30 days</h2>
      <p class="status" role="status">
        {total.toLocaleString()} leads raised{suppressed ? `, ${suppressed.toLocaleString()} firings suppressed` : ''}
      </p>
      <svg class="firings" viewBox="0 0 100 30" preserveAspectRatio="none" aria-hidden="true">
        {days.map((d, n) => (
          <rect key={d.day} class="bar" x={n * width + 0.1} width={width - 0.2} y={30 - (d.count / max) * 30} height={(d.count / max) * 30}>
            <title>
              {d.day}: {d.count}
            </title>
          </rect>
        ))}
      </svg>
      <details>
        <summary>Leads per day</summary>
        <table>
          <caption class="visually-hidden">Leads the rule raised per day (UTC)</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Leads</th>
              <th scope="col">Suppressed</th>
            </tr>
          </thead>
          <tbody>
            {days
              .filter((d) => d.count > 0 || d.suppressed > 0)
              .map((d) => (
                <tr key={d.day}>
                  <td>{d.day}</td>
                  <td>{d.count}</td>
                  <td>{d.suppressed}</td>
                </tr>
              ))}
          </tbody>
        </table>
      </details>
    </section>
  );
}

function SigmaExport({ id }: { id: string }) {
  const result = useSignal<{ error: string | null; file: string | null }>({ error: null, file: null });
  async function exportRule() {
    try {
      result.value = { error: null, file: await download(`/v1/lead-rules/${id}`, { format: 'sigma' }) };
    } catch (err) {
      result.value = { error: errorText(err), file: null };
    }
  }
  return (
    <section aria-labelledby="export-title">
      <h2 id="export-title">Export</h2>
      <button type="button" onClick={() => void exportRule()}>
        Export as Sigma
      </button>{' '}
      {result.value.file && <span class="status">Saved as {result.value.file}</span>}
      <ErrorLine message={result.value.error} />
    </section>
  );
}

const BACKFILL_RANGES = [
  { key: '1d', label: 'Last day', days: 1 },
  { key: '7d', label: 'Last 7 days', days: 7 },
  { key: '30d', label: 'Last 30 days', days: 30 },
] as const;

/** Runs the rule over stored events as a job and follows it until it ends; the newest job shows on arrival. */
function Backfill({ id }: { id: string }) {
  const job = useSignal<BackfillJob | null>(null);
  const range = useSignal<string>('7d');
  const error = useSignal<string | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    api<{ jobs: BackfillJob[] }>('GET', `/v1/lead-rules/${id}/backfill`, { query: { limit: 1 }, signal: controller.signal })
      .then(({ data }) => (job.value = data.jobs[0] ?? null))
      .catch(() => undefined);
    return () => controller.abort();
  }, [id]);

  const current = job.value;
  const unfinished = current !== null && (current.status === 'queued' || current.status === 'running');
  useEffect(() => {
    if (!current || !unfinished) return;
    const timer = setTimeout(() => {
      api<BackfillJob>('GET', `/v1/lead-rules/${id}/backfill/${current.id}`)
        .then(({ data }) => (job.value = data))
        .catch((err: unknown) => (error.value = errorText(err)));
    }, BACKFILL_POLL_MS);
    return () => clearTimeout(timer);
  }, [current]);

  async function start() {
    error.value = null;
    const days = BACKFILL_RANGES.find((r) => r.key === range.value)!.days;
    try {
      const { data } = await api<BackfillJob>('POST', `/v1/lead-rules/${id}/backfill`, { body: { start: new Date(Date.now() - days * 86_400_000).toISOString() } });
      job.value = data;
    } catch (err) {
      error.value = errorText(err);
    }
  }

  return (
    <section aria-labelledby="backfill-title">
      <h2 id="backfill-title">Backfill</h2>
      <p class="status">Run the rule over stored events, raising what it would have raised at ingest (what it already raised is left alone).</p>
      {can('signals:manage') && (
        <div class="row">
          <label for="backfill-range">Over</label>
          <select id="backfill-range" value={range.value} onChange={(e) => (range.value = e.currentTarget.value)}>
            {BACKFILL_RANGES.map((r) => (
              <option key={r.key} value={r.key}>
                {r.label}
              </option>
            ))}
          </select>
          <button type="button" disabled={unfinished} onClick={() => void start()}>
            Run backfill
          </button>
        </div>
      )}
      <ErrorLine message={error.value} />
      {current && (
        <div class="backfill-job">
          <progress aria-label="Backfill progress" max={1} value={current.progress} />{' '}
          <span role="status">
            Backfill {current.status}
            {current.events_total !== null ? `: ${current.events_done.toLocaleString()} of ${current.events_total.toLocaleString()} events` : ''}
            {current.status === 'succeeded' ? `; ${current.raised.toLocaleString()} leads raised, ${current.already_raised.toLocaleString()} already raised` : ''}
            {current.status === 'failed' ? `: ${current.error}` : ''}
          </span>
          <p class="status">
            Events from <Time iso={current.start} /> to <Time iso={current.end} />
          </p>
        </div>
      )}
    </section>
  );
}
