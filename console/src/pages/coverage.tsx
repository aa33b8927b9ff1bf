// Where detection shows its blind spots (/parsing): the parser coverage of
// the organization's own lines (GET /v1/parser/coverage): per source and per
// what read them, how many became events, got a category, kept their
// address as source.ip, were read only generically or not at all; and the
// most frequent shapes of lines nothing understood, each a way to a decoder.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { navigate, place, withParams } from '../router.ts';
import { can } from '../session.ts';
import { Time } from '../time.tsx';
import { ErrorLine } from '../messages.tsx';

const RANGES = [
  { key: '24h', label: 'Last 24 hours', ms: 86_400_000 },
  { key: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
  { key: '30d', label: 'Last 30 days', ms: 30 * 86_400_000 },
] as const;

interface Counts {
  lines: number;
  events: number;
  failures: number;
  categorised: number;
  categorised_share: number | null;
  address_lines: number;
  address_lines_with_source_ip: number;
  source_ip_share: number | null;
  generic: number;
  generic_share: number | null;
}

interface Coverage {
  start: string;
  end: string;
  scanned: { artifacts: number; limit: number; truncated: boolean; start: string };
  totals: Counts;
  sources: Array<Counts & { source: string; tags: Array<Counts & { tag_kind: string; tag: string }> }>;
  unrecognised_shapes: Array<{ shape: string; count: number; source: string; tag_kind: string; tag: string; example_artifact_id: string }>;
}

/** A share as a percentage with one decimal, or a dash when there is nothing to divide. */
export function percent(share: number | null): string {
  return share === null ? '–' : `${(share * 100).toFixed(1)}%`;
}

export function ParsingTabs({ current }: { current: string }) {
  return (
    <nav aria-label="Parsing" class="tabs">
      <a href="/parsing" aria-current={current === '/parsing' ? 'page' : undefined}>
        Coverage
      </a>
      <a href="/parsing/decoders" aria-current={current.startsWith('/parsing/decoders') ? 'page' : undefined}>
        Decoders
      </a>
    </nav>
  );
}

function CountCells({ c }: { c: Counts }) {
  return (
    <>
      <td class="number">{c.lines.toLocaleString()}</td>
      <td class="number">{c.events.toLocaleString()}</td>
      <td class="number">{c.failures.toLocaleString()}</td>
      <td class="number">{percent(c.categorised_share)}</td>
      <td class="number">{percent(c.source_ip_share)}</td>
      <td class="number">{percent(c.generic_share)}</td>
    </>
  );
}

const TAG_KINDS: Record<string, string> = { device: 'device format', vendor: 'vendor', program: 'program', parser: 'parser', unparsed: 'nothing' };

export function CoveragePage() {
  const rangeKey = place.value.params.get('range') ?? '24h';
  const range = RANGES.find((r) => r.key === rangeKey) ?? RANGES[0];
  const report = useSignal<Coverage | null>(null);
  const error = useSignal<string | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    report.value = null;
    api<Coverage>('GET', '/v1/parser/coverage', { query: { start: new Date(Date.now() - range.ms).toISOString() }, signal: controller.signal })
      .then(({ data }) => {
        report.value = data;
        error.value = null;
      })
      .catch((err: unknown) => {
        if (!controller.signal.aborted) error.value = err instanceof ApiError ? err.message : String(err);
      });
    return () => controller.abort();
  }, [range.key]);

  const r = report.value;
  const t = r?.totals;
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Parser coverage</h1>
      <ParsingTabs current="/parsing" />
      <form class="filters" aria-label="Coverage range" onSubmit={(e) => e.preventDefault()}>
        <label for="coverage-range">Lines stored</label>
        <select id="coverage-range" value={range.key} onChange={(e) => navigate(withParams('/parsing', { range: e.currentTarget.value === '24h' ? '' : e.currentTarget.value }))}>
          {RANGES.map((x) => (
            <option key={x.key} value={x.key}>
              {x.label}
            </option>
          ))}
        </select>
      </form>
      <ErrorLine message={error.value} />
      {!r && !error.value && <p role="status">Loading…</p>}
      {r && t && (
        <>
          <p class="status">
            From <Time iso={r.start} /> to <Time iso={r.end} />: {r.scanned.artifacts.toLocaleString()} lines read
            {r.scanned.truncated ? ` (the newest ${r.scanned.limit.toLocaleString()} of the range)` : ''}.
          </p>
          <dl class="figures" aria-label="Coverage totals">
            <div>
              <dt>Lines</dt>
              <dd>{t.lines.toLocaleString()}</dd>
            </div>
            <div>
              <dt>Became events</dt>
              <dd>{t.events.toLocaleString()}</dd>
            </div>
            <div>
              <dt>Not parsed</dt>
              <dd>{t.failures.toLocaleString()}</dd>
            </div>
            <div>
              <dt>With a category</dt>
              <dd>{percent(t.categorised_share)}</dd>
            </div>
            <div>
              <dt>Address kept as source.ip</dt>
              <dd>{percent(t.source_ip_share)}</dd>
            </div>
            <div>
              <dt>Read only generically</dt>
              <dd>{percent(t.generic_share)}</dd>
            </div>
          </dl>
          <h2>By source, and what read its lines</h2>
          <table>
            <caption class="visually-hidden">Coverage by source and reader, most lines first</caption>
            <thead>
              <tr>
                <th scope="col">Source / read by</th>
                <th scope="col" class="number">Lines</th>
                <th scope="col" class="number">Events</th>
                <th scope="col" class="number">Not parsed</th>
                <th scope="col" class="number">Category</th>
                <th scope="col" class="number">source.ip</th>
                <th scope="col" class="number">Generic</th>
              </tr>
            </thead>
            <tbody>
              {r.sources.flatMap((s) => [
                <tr key={s.source} class="group-row">
                  <th scope="row">{s.source}</th>
                  <CountCells c={s} />
                </tr>,
                ...s.tags.map((tag) => (
                  <tr key={`${s.source}/${tag.tag_kind}/${tag.tag}`}>
                    <th scope="row" class="sub">
                      {tag.tag || '(nothing)'} <span class="node-type">{TAG_KINDS[tag.tag_kind] ?? tag.tag_kind}</span>
                    </th>
                    <CountCells c={tag} />
                  </tr>
                )),
              ])}
            </tbody>
          </table>
          <h2>Lines not understood, by shape</h2>
          {r.unrecognised_shapes.length === 0 ? (
            <p class="empty">Every line of the range was parsed with a category.</p>
          ) : (
            <table>
              <caption class="visually-hidden">The most frequent shapes of lines without a category or not parsed</caption>
              <thead>
                <tr>
                  <th scope="col">Shape</th>
                  <th scope="col" class="number">Lines</th>
                  <th scope="col">Source</th>
                  <th scope="col">Read by</th>
                  <th scope="col">Example</th>
                </tr>
              </thead>
              <tbody>
                {r.unrecognised_shapes.map((s) => (
                  <tr key={`${s.source}/${s.tag}/${s.shape}`}>
                    <td>
                      <code>{s.shape}</code>
                    </td>
                    <td class="number">{s.count.toLocaleString()}</td>
                    <td>{s.source}</td>
                    <td>{s.tag || TAG_KINDS[s.tag_kind]}</td>
                    <td class="nowrap">
                      <a href={withParams('/search', { q: `id:${s.example_artifact_id}`, range: 'all', artifact: s.example_artifact_id })}>Open</a>
                      {can('signals:manage') && (
                        <>
                          {' · '}
                          <a href={withParams('/parsing/decoders/new', { source: s.source, example: s.example_artifact_id })}>Write a decoder</a>
                        </>
                      )}
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
