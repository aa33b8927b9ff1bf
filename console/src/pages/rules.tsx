// Lead rules (/rules): each with where it came from (written here, a Sigma
// import, the shipped pack), whether it is on, and how often it fired in the
// last 30 days; and Sigma import by paste (/rules/import) with what became of
// each rule.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { navigate, place, withParams } from '../router.ts';
import { can } from '../session.ts';
import { PageLink } from '../page-link.tsx';
import { SeverityBadge } from '../severity.tsx';
import { Time } from '../time.tsx';
import { ErrorLine } from '../messages.tsx';

const PAGE_SIZE = 50;
/** Rule details asked at once for the firing counts: the list must not flood a loaded server. */
const DETAIL_CONCURRENCY = 4;

export interface RuleConditions {
  source?: string;
  pattern: string;
  threshold?: number;
  window?: string;
  group_by?: string;
  count_distinct?: string;
  sequence?: string[];
  ordered?: boolean;
  first_seen?: { field: string; days: number; baseline?: boolean };
  suppress?: string;
}

export type RuleOrigin =
  | { format: 'sigma'; id: string | null; title: string; author: string | null; references: string[]; license: string }
  | { format: 'pack'; pack_id: string; pack_version: string; family: string };

export interface LeadRule {
  id: string;
  name: string;
  description: string;
  enabled: boolean;
  severity: string;
  tags: string[];
  conditions: RuleConditions;
  origin: RuleOrigin | null;
  created_at: string;
  updated_at: string;
}

export interface FiringDay {
  day: string;
  count: number;
  suppressed: number;
}

/** Where a rule came from, in words; the details (Sigma id and author, pack id) on hover. */
export function OriginLabel({ origin }: { origin: RuleOrigin | null }) {
  if (!origin) return <span>Hand-written</span>;
  if (origin.format === 'pack') return <span title={`pack rule ${origin.pack_id} (${origin.family})`}>Rule pack {origin.pack_version}</span>;
  const by = origin.author ? ` by ${origin.author}` : '';
  return <span title={`Sigma rule ${origin.id ?? origin.title}${by}, ${origin.license}`}>Sigma{origin.author ? ` (${origin.author})` : ''}</span>;
}

export function RulesTabs({ current }: { current: string }) {
  return (
    <nav aria-label="Rules" class="tabs">
      <a href="/rules" aria-current={current === '/rules' ? 'page' : undefined}>
        Rules
      </a>
      {can('signals:manage') && (
        <>
          <a href="/rules/new" aria-current={current === '/rules/new' ? 'page' : undefined}>
            New rule
          </a>
          <a href="/rules/import" aria-current={current === '/rules/import' ? 'page' : undefined}>
            Import Sigma
          </a>
        </>
      )}
    </nav>
  );
}

/** Runs `work` on each item, a few at a time. */
async function eachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

export function RulesPage() {
  const params = place.value.params;
  const enabled = params.get('enabled') ?? '';
  const offset = Math.max(0, Number(params.get('offset') ?? 0) || 0);
  const list = useSignal<{ rules: LeadRule[]; total: number } | null>(null);
  const firings = useSignal<Record<string, number>>({});
  const error = useSignal<string | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    list.value = null;
    api<{ rules: LeadRule[]; total: number }>('GET', '/v1/lead-rules', { query: { enabled, limit: PAGE_SIZE, offset }, signal: controller.signal })
      .then(async ({ data }) => {
        list.value = data;
        error.value = null;
        firings.value = {};
        await eachLimited(data.rules, DETAIL_CONCURRENCY, async (rule) => {
          if (controller.signal.aborted) return;
          const detail = await api<{ firings_by_day: FiringDay[] }>('GET', `/v1/lead-rules/${rule.id}`, { signal: controller.signal });
          firings.value = { ...firings.value, [rule.id]: detail.data.firings_by_day.reduce((sum, d) => sum + d.count, 0) };
        });
      })
      .catch((err: unknown) => {
        if (!controller.signal.aborted) error.value = err instanceof ApiError ? err.message : String(err);
      });
    return () => controller.abort();
  }, [enabled, offset]);

  const urlWith = (change: Record<string, string | number>) => withParams('/rules', { enabled, offset: '', ...change });
  const data = list.value;
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Lead rules</h1>
      <RulesTabs current="/rules" />
      <form class="filters" aria-label="Rule filters" onSubmit={(e) => e.preventDefault()}>
        <label for="enabled-filter">State</label>
        <select id="enabled-filter" value={enabled} onChange={(e) => navigate(urlWith({ enabled: e.currentTarget.value }))}>
          <option value="">Enabled and disabled</option>
          <option value="true">Enabled</option>
          <option value="false">Disabled</option>
        </select>
      </form>
      <ErrorLine message={error.value} />
      <p role="status" class="status">
        {data ? `${data.total.toLocaleString()} rule${data.total === 1 ? '' : 's'}` : 'Loading…'}
      </p>
      {data && data.rules.length > 0 && (
        <>
          <table>
            <caption class="visually-hidden">Lead rules, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Origin</th>
                <th scope="col">State</th>
                <th scope="col">Severity</th>
                <th scope="col" class="nowrap">
                  Leads, 30 days
                </th>
                <th scope="col">Changed</th>
              </tr>
            </thead>
            <tbody>
              {data.rules.map((rule) => (
                <tr key={rule.id}>
                  <td>
                    <a href={`/rules/${rule.id}`}>{rule.name}</a>
                  </td>
                  <td>
                    <OriginLabel origin={rule.origin} />
                  </td>
                  <td>{rule.enabled ? 'Enabled' : 'Disabled'}</td>
                  <td>
                    <SeverityBadge severity={rule.severity} />
                  </td>
                  <td class="number">{firings.value[rule.id]?.toLocaleString() ?? '…'}</td>
                  <td class="nowrap">
                    <Time iso={rule.updated_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <nav class="pager" aria-label="Rule pages">
            <PageLink href={urlWith({ offset: Math.max(0, offset - PAGE_SIZE) || '' })} enabled={offset > 0} label="Previous page" />
            <span>
              {offset + 1}–{offset + data.rules.length} of {data.total}
            </span>
            <PageLink href={urlWith({ offset: offset + PAGE_SIZE })} enabled={offset + PAGE_SIZE < data.total} label="Next page" />
          </nav>
        </>
      )}
    </section>
  );
}

interface ImportResult {
  title: string;
  sigma_id: string | null;
  status: 'imported' | 'skipped';
  action: 'created' | 'updated' | null;
  rule_id: string | null;
  reason: string | null;
}

export function SigmaImportPage() {
  const text = useSignal('');
  const enable = useSignal(true);
  const busy = useSignal(false);
  const outcome = useSignal<{ message: string; results: ImportResult[] } | null>(null);
  const error = useSignal<string | null>(null);

  async function importRules(event: Event) {
    event.preventDefault();
    busy.value = true;
    error.value = null;
    try {
      const { data, message } = await api<{ results: ImportResult[] }>('POST', '/v1/lead-rules/import', { body: { rules: text.value, enabled: enable.value } });
      outcome.value = { message, results: data.results };
    } catch (err) {
      error.value = err instanceof ApiError ? err.message : String(err);
    } finally {
      busy.value = false;
    }
  }

  async function readFile(input: HTMLInputElement) {
    const file = input.files?.[0];
    if (file) text.value = await file.text();
  }

  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Import Sigma rules</h1>
      <RulesTabs current="/rules/import" />
      {!can('signals:manage') ? (
        <p>Importing rules needs the signals:manage permission.</p>
      ) : (
        <form class="stack" onSubmit={importRules}>
          <label for="sigma-text">Sigma YAML (one rule, or many separated by ---)</label>
          <textarea id="sigma-text" class="code" rows={14} spellcheck={false} value={text.value} onInput={(e) => (text.value = e.currentTarget.value)} />
          <label for="sigma-file">Or read a file</label>
          <input id="sigma-file" type="file" accept=".yml,.yaml,text/yaml" onChange={(e) => void readFile(e.currentTarget)} />
          <label class="inline">
            <input type="checkbox" checked={enable.value} onChange={(e) => (enable.value = e.currentTarget.checked)} /> Enable the new rules
          </label>
          <div>
            <button type="submit" disabled={busy.value || !text.value.trim()}>
              Import
            </button>
          </div>
        </form>
      )}
      <ErrorLine message={error.value} />
      {outcome.value && (
        <>
          <p role="status" class="status">
            {outcome.value.message}
          </p>
          <table>
            <caption class="visually-hidden">Import results, one row per Sigma rule</caption>
            <thead>
              <tr>
                <th scope="col">Sigma rule</th>
                <th scope="col">Result</th>
                <th scope="col">Why skipped</th>
              </tr>
            </thead>
            <tbody>
              {outcome.value.results.map((r, n) => (
                <tr key={n}>
                  <td>{r.rule_id ? <a href={`/rules/${r.rule_id}`}>{r.title}</a> : r.title}</td>
                  <td>{r.status === 'imported' ? `Imported (${r.action})` : 'Skipped'}</td>
                  <td>{r.reason ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
