// The organization's own decoders (/parsing/decoders) and the editor of one
// (/parsing/decoders/<id>, /parsing/decoders/new): the service as the YAML
// a catalogue file holds (docs/parsing.md "Your own decoders"), its test
// lines, and a dry run (POST /v1/decoders/test) on those lines or on the
// stored lines of the last day before it is saved.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { api, ApiError } from '../api.ts';
import { navigate, place } from '../router.ts';
import { can } from '../session.ts';
import { Time } from '../time.tsx';
import { ParsingTabs } from './coverage.tsx';
import { ErrorLine } from '../messages.tsx';

interface StoredDecoder {
  id: string;
  service: string;
  spec: ServiceSpec;
  created_at: string;
  updated_at: string;
}

interface ServiceSpec {
  service: string;
  description: string;
  programs?: string[];
  sources?: string[];
  decoders: Array<{ name: string; match: string }>;
  tests: Array<{ line: string; source?: string; expect: Record<string, unknown> }>;
}

type ParseOutcome = { parser: string; fields: Record<string, unknown> } | { error: string };

interface Trial {
  lines_read: number;
  lines_claimed: number;
  lines_changed: number;
  lines_recognised: number;
  fields_set: Record<string, number>;
  fields_removed: Record<string, number>;
  samples: Array<{ artifact_id: string | null; source: string; raw: string; claimed: boolean; before: ParseOutcome; after: ParseOutcome }>;
  problems: Array<{ decoder?: string; test?: number; message: string }>;
  took_ms: number;
}

const errorText = (err: unknown) => (err instanceof ApiError ? err.message : String(err));

export function DecodersPage() {
  const list = useSignal<{ decoders: StoredDecoder[]; total: number } | null>(null);
  const error = useSignal<string | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    api<{ decoders: StoredDecoder[]; total: number }>('GET', '/v1/decoders', { query: { limit: 200 }, signal: controller.signal })
      .then(({ data }) => (list.value = data))
      .catch((err: unknown) => {
        if (!controller.signal.aborted) error.value = errorText(err);
      });
    return () => controller.abort();
  }, []);
  const data = list.value;
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Decoders</h1>
      <ParsingTabs current="/parsing/decoders" />
      <p>
        Your own services, tried before the shipped ones, in this order.{' '}
        {can('signals:manage') && <a href="/parsing/decoders/new">New decoder</a>}
      </p>
      <ErrorLine message={error.value} />
      <p role="status" class="status">
        {data ? `${data.total} decoder${data.total === 1 ? '' : 's'}` : 'Loading…'}
      </p>
      {data && data.decoders.length > 0 && (
        <table>
          <caption class="visually-hidden">Decoders, in the order they are tried</caption>
          <thead>
            <tr>
              <th scope="col">Service</th>
              <th scope="col">Description</th>
              <th scope="col">Programs and sources</th>
              <th scope="col" class="number">Shapes</th>
              <th scope="col" class="number">Test lines</th>
              <th scope="col">Changed</th>
            </tr>
          </thead>
          <tbody>
            {data.decoders.map((d) => (
              <tr key={d.id}>
                <td>
                  <a href={`/parsing/decoders/${d.id}`}>{d.service}</a>
                </td>
                <td>{d.spec.description}</td>
                <td>{[...(d.spec.programs ?? []), ...(d.spec.sources ?? []).map((s) => `source ${s}`)].join(', ')}</td>
                <td class="number">{d.spec.decoders.length}</td>
                <td class="number">{d.spec.tests.length}</td>
                <td class="nowrap">
                  <Time iso={d.updated_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** A new decoder's starting document: a source (and an example line) from the coverage page when it came from there. */
function template(source: string, line: string): string {
  return toYaml({
    service: 'my-service',
    description: 'What these lines are',
    programs: [],
    sources: source ? [source] : [],
    decoders: [{ name: 'first-shape', match: '^denied user={USER} from {IP}$', fields: { 'event.category': ['authentication'], 'event.outcome': 'failure' } }],
    tests: [{ line: line || 'denied user=erin from 192.0.2.60', expect: { 'user.name': 'erin' } }],
  });
}

/** The YAML as a service, or the reason it is not one (YAML syntax; the API checks the rest). */
function readSpec(text: string): { spec: ServiceSpec | null; problem: string | null } {
  try {
    const spec = parseYaml(text) as unknown;
    if (!spec || typeof spec !== 'object' || Array.isArray(spec)) return { spec: null, problem: 'the document must be a mapping (service, description, decoders, tests, ...)' };
    return { spec: spec as ServiceSpec, problem: null };
  } catch (err) {
    return { spec: null, problem: `YAML: ${err instanceof Error ? err.message : String(err)}` };
  }
}

export function DecoderPage({ id }: { id: string | null }) {
  const text = useSignal<string | null>(null);
  const stored = useSignal<StoredDecoder | null>(null);
  const trial = useSignal<{ on: 'tests' | 'stored'; result: Trial } | null>(null);
  const state = useSignal<{ busy: boolean; error: string | null; message: string | null }>({ busy: false, error: null, message: null });
  const manage = can('signals:manage');

  useEffect(() => {
    const controller = new AbortController();
    trial.value = null;
    state.value = { busy: false, error: null, message: null };
    if (id) {
      api<StoredDecoder>('GET', `/v1/decoders/${id}`, { signal: controller.signal })
        .then(({ data }) => {
          stored.value = data;
          text.value = toYaml(data.spec);
        })
        .catch((err: unknown) => {
          if (!controller.signal.aborted) state.value = { busy: false, error: errorText(err), message: null };
        });
    } else {
      const params = place.value.params;
      const example = params.get('example');
      const source = params.get('source') ?? '';
      stored.value = null;
      text.value = template(source, '');
      if (example)
        api<{ artifacts: Array<{ raw: string }> }>('GET', '/v1/artifacts', { query: { query: `id:${example}`, limit: 1 }, signal: controller.signal })
          .then(({ data }) => {
            if (data.artifacts[0]) text.value = template(source, data.artifacts[0].raw);
          })
          .catch(() => undefined);
    }
    return () => controller.abort();
  }, [id]);

  const { spec, problem } = readSpec(text.value ?? '');

  async function dryRun(on: 'tests' | 'stored') {
    if (!spec) return;
    state.value = { busy: true, error: null, message: null };
    try {
      const lines = on === 'tests' ? (spec.tests ?? []).map((t) => t.line) : undefined;
      const { data } = await api<Trial>('POST', '/v1/decoders/test', { body: { ...(id ? { id } : {}), decoder: spec, ...(lines ? { lines } : {}) } });
      trial.value = { on, result: data };
      state.value = { busy: false, error: null, message: null };
    } catch (err) {
      state.value = { busy: false, error: errorText(err), message: null };
    }
  }

  async function save() {
    if (!spec) return;
    state.value = { busy: true, error: null, message: null };
    try {
      const { data, message } = id ? await api<StoredDecoder>('PUT', `/v1/decoders/${id}`, { body: spec }) : await api<StoredDecoder>('POST', '/v1/decoders', { body: spec });
      state.value = { busy: false, error: null, message };
      if (!id) navigate(`/parsing/decoders/${data.id}`);
      else stored.value = data;
    } catch (err) {
      state.value = { busy: false, error: errorText(err), message: null };
    }
  }

  if (text.value === null)
    return state.value.error ? (
      <p class="error" role="alert">
        {state.value.error}
      </p>
    ) : (
      <p role="status">Loading…</p>
    );
  const failing = new Map((trial.value?.result.problems ?? []).filter((p) => p.test !== undefined).map((p) => [p.test!, p.message]));
  const tested = trial.value !== null;
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">{stored.value ? `Decoder ${stored.value.service}` : 'New decoder'}</h1>
      <ParsingTabs current="/parsing/decoders" />
      <div class="rule-layout">
        <div class="stack">
          <label for="decoder-yaml">Service (YAML, as a catalogue file)</label>
          <textarea id="decoder-yaml" class="code" rows={22} spellcheck={false} readOnly={!manage} value={text.value} onInput={(e) => (text.value = e.currentTarget.value)} aria-invalid={problem ? 'true' : undefined} aria-describedby={problem ? 'decoder-yaml-problem' : undefined} />
          {problem && (
            <p class="error" id="decoder-yaml-problem">
              {problem}
            </p>
          )}
          <div class="row">
            <button type="button" disabled={!spec || state.value.busy} onClick={() => void dryRun('tests')}>
              Try on its test lines
            </button>
            <button type="button" disabled={!spec || state.value.busy} onClick={() => void dryRun('stored')}>
              Try on stored lines (last day)
            </button>
            {manage && (
              <button type="button" disabled={!spec || state.value.busy} onClick={() => void save()}>
                {id ? 'Save decoder' : 'Add decoder'}
              </button>
            )}
            {state.value.message && (
              <span role="status" class="notice">
                {state.value.message}
              </span>
            )}
          </div>
          <ErrorLine message={state.value.error} />
        </div>
        <section class="preview" aria-labelledby="tests-title">
          <h2 id="tests-title">Test lines</h2>
          <ol class="test-lines" aria-label="Test lines">
            {(spec?.tests ?? []).map((t, n) => (
              <li key={n}>
                <code>{t.line}</code>
                <br />
                <span class={failing.has(n + 1) ? 'error' : tested ? 'notice' : 'status'}>{failing.get(n + 1) ?? (tested ? 'Passes' : 'Not tried yet')}</span>
              </li>
            ))}
          </ol>
          {trial.value && <TrialResult on={trial.value.on} result={trial.value.result} />}
        </section>
      </div>
    </section>
  );
}

function TrialResult({ on, result }: { on: 'tests' | 'stored'; result: Trial }) {
  const otherProblems = result.problems.filter((p) => p.test === undefined);
  return (
    <section aria-labelledby="dry-run-title">
      <h2 id="dry-run-title">Dry run on {on === 'tests' ? 'its test lines' : 'stored lines'}</h2>
      <p role="status" class="preview-counts">
        {result.lines_claimed} of {result.lines_read} lines claimed, {result.lines_changed} changed, {result.lines_recognised} newly recognised
      </p>
      {otherProblems.map((p, n) => (
        <p class="error" key={n}>
          {p.decoder ? `${p.decoder}: ` : ''}
          {p.message}
        </p>
      ))}
      {Object.keys(result.fields_set).length > 0 && (
        <table>
          <caption class="visually-hidden">Fields it would set, with the lines on which it would</caption>
          <thead>
            <tr>
              <th scope="col">Field set</th>
              <th scope="col" class="number">Lines</th>
            </tr>
          </thead>
          <tbody>
            {Object.entries(result.fields_set).map(([field, count]) => (
              <tr key={field}>
                <td>
                  <code>{field}</code>
                </td>
                <td class="number">{count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {result.samples.length > 0 && (
        <details>
          <summary>Lines before and after ({result.samples.length})</summary>
          {result.samples.map((s, n) => (
            <div key={n} class="sample">
              <pre class="raw-text">{s.raw}</pre>
              <p class="status">
                Before: {'error' in s.before ? s.before.error : s.before.parser}; after: {'error' in s.after ? s.after.error : `${s.after.parser}, ${Object.keys(s.after.fields).length} fields`}
              </p>
            </div>
          ))}
        </details>
      )}
      <p class="status">Answered in {result.took_ms} ms.</p>
    </section>
  );
}
