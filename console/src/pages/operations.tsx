// Service health (/settings/health: every service and dependency, the
// alerts active now, the alert rules, each switched on or off with
// health:manage) and the audit log (/settings/audit, admin: who changed
// what, newest first, filtered by action and outcome) and the TLS
// certificate (/settings/tls: stored ones with their expiry, upload, activate).
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { navigate, place, withParams } from '../router.ts';
import { can } from '../session.ts';
import { PageLink } from '../page-link.tsx';
import { Time } from '../time.tsx';
import { SettingsTabs } from './settings.tsx';
import { ErrorLine, NoticeLine } from '../messages.tsx';

const errorText = (err: unknown) => (err instanceof ApiError ? err.message : String(err));
const HEALTH_REFRESH_MS = 10_000;

interface Service {
  name: string;
  kind: string;
  status: string;
  reason: string | null;
  instances_up: number;
  instances_total: number;
  last_heartbeat: string | null;
  cpu_ratio: number;
  memory_bytes: number;
  event_loop_lag_seconds: number;
  lag: number | null;
  throughput: number;
}

interface Alert {
  rule_name: string;
  severity: string;
  subject: string;
  value: number;
  threshold: number;
  comparison: string;
  state: string;
  since: string;
}

interface AlertRule {
  id: string;
  name: string;
  metric: string;
  comparison: string;
  threshold: number;
  for_seconds: number;
  severity: string;
  service: string | null;
  enabled: boolean;
  builtin: boolean;
}

const mebibytes = (bytes: number) => `${(bytes / 1_048_576).toFixed(0)} MiB`;

export function HealthPage() {
  const services = useSignal<Service[] | null>(null);
  const alerts = useSignal<{ alerts: Alert[]; rules: AlertRule[] } | null>(null);
  const error = useSignal<string | null>(null);
  const notice = useSignal<string | null>(null);
  const version = useSignal(0);

  useEffect(() => {
    const controller = new AbortController();
    const load = () => {
      api<{ containers: Service[] }>('GET', '/v1/health/containers', { signal: controller.signal })
        .then(({ data }) => (services.value = data.containers))
        .catch((err: unknown) => {
          if (!controller.signal.aborted) error.value = errorText(err);
        });
      api<{ alerts: Alert[]; rules: AlertRule[] }>('GET', '/v1/health/alerts', { signal: controller.signal })
        .then(({ data }) => (alerts.value = data))
        .catch(() => undefined);
    };
    load();
    // Health moves by itself: asked again while the page is open.
    const timer = setInterval(() => document.visibilityState === 'visible' && load(), HEALTH_REFRESH_MS);
    return () => {
      clearInterval(timer);
      controller.abort();
    };
  }, [version.value]);

  // A switched rule shows its new state at once, not after the list is asked again (and goes back if the API refuses).
  const switched = useSignal<Record<string, boolean>>({});
  async function setEnabled(rule: AlertRule, enabled: boolean) {
    switched.value = { ...switched.value, [rule.id]: enabled };
    try {
      notice.value = (await api('PUT', `/v1/health/alerts/${rule.id}`, { body: { enabled } })).message;
      version.value++;
    } catch (err) {
      switched.value = { ...switched.value, [rule.id]: rule.enabled };
      error.value = errorText(err);
    }
  }

  const manage = can('health:manage');
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Service health</h1>
      <SettingsTabs current="/settings/health" />
      <ErrorLine message={error.value} />
      <NoticeLine message={notice.value} />
      {services.value && (
        <table>
          <caption class="visually-hidden">Services and dependencies</caption>
          <thead>
            <tr>
              <th scope="col">Service</th>
              <th scope="col">Status</th>
              <th scope="col" class="number">Instances</th>
              <th scope="col" class="number">CPU</th>
              <th scope="col" class="number">Memory</th>
              <th scope="col" class="number">Lag</th>
              <th scope="col" class="number">Per second</th>
              <th scope="col">Last heartbeat</th>
            </tr>
          </thead>
          <tbody>
            {services.value.map((s) => (
              <tr key={s.name}>
                <th scope="row">
                  {s.name} <span class="node-type">{s.kind}</span>
                </th>
                <td class={s.status === 'up' ? 'notice' : 'error'}>
                  {s.status}
                  {s.reason ? `: ${s.reason}` : ''}
                </td>
                <td class="number">
                  {s.instances_up} of {s.instances_total}
                </td>
                <td class="number">{s.cpu_ratio.toFixed(2)}</td>
                <td class="number">{mebibytes(s.memory_bytes)}</td>
                <td class="number">{s.lag ?? '–'}</td>
                <td class="number">{s.throughput.toFixed(1)}</td>
                <td class="nowrap">{s.last_heartbeat ? <Time iso={s.last_heartbeat} /> : 'never'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Active alerts</h2>
      {alerts.value && alerts.value.alerts.length === 0 && <p class="empty">No alert is pending or firing.</p>}
      {alerts.value && alerts.value.alerts.length > 0 && (
        <ul class="plain">
          {alerts.value.alerts.map((a, n) => (
            <li key={n}>
              <strong>{a.state}</strong> {a.rule_name} on {a.subject}: {a.value} {a.comparison} {a.threshold} ({a.severity}), since <Time iso={a.since} />
            </li>
          ))}
        </ul>
      )}
      <h2>Alert rules</h2>
      {alerts.value && (
        <table>
          <caption class="visually-hidden">Health alert rules</caption>
          <thead>
            <tr>
              <th scope="col">Rule</th>
              <th scope="col">Condition</th>
              <th scope="col">Severity</th>
              <th scope="col">Enabled</th>
            </tr>
          </thead>
          <tbody>
            {alerts.value.rules.map((r) => (
              <tr key={r.id}>
                <th scope="row">
                  {r.name}
                  {r.builtin ? <span class="tag">built-in</span> : null}
                </th>
                <td>
                  <code>
                    {r.metric} {r.comparison} {r.threshold}
                  </code>{' '}
                  for {r.for_seconds} s{r.service ? ` on ${r.service}` : ''}
                </td>
                <td>{r.severity}</td>
                <td>
                  <input type="checkbox" aria-label={`${r.name} enabled`} checked={switched.value[r.id] ?? r.enabled} disabled={!manage} onChange={(e) => void setEnabled(r, e.currentTarget.checked)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

interface AuditEntry {
  id: string;
  at: string;
  actor_id: string;
  actor_email: string;
  actor_via: string;
  action: string;
  target_type: string;
  target_id: string;
  outcome: string;
  client_ip: string;
}

const AUDIT_PAGE = 50;

export function AuditPage() {
  const params = place.value.params;
  const action = params.get('action') ?? '';
  const outcome = params.get('outcome') ?? '';
  const offset = Math.max(0, Number(params.get('offset') ?? 0) || 0);
  const draft = useSignal(action);
  const page = useSignal<{ entries: AuditEntry[]; total: number } | null>(null);
  const error = useSignal<string | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    draft.value = action;
    api<{ entries: AuditEntry[]; total: number }>('GET', '/v1/audit-log', { query: { action, outcome, limit: AUDIT_PAGE, offset }, signal: controller.signal })
      .then(({ data }) => {
        page.value = data;
        error.value = null;
      })
      .catch((err: unknown) => {
        if (!controller.signal.aborted) error.value = errorText(err);
      });
    return () => controller.abort();
  }, [action, outcome, offset]);

  const urlWith = (change: Record<string, string | number>) => withParams('/settings/audit', { action, outcome, offset: '', ...change });
  const data = page.value;
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Audit log</h1>
      <SettingsTabs current="/settings/audit" />
      <form
        class="filters"
        aria-label="Audit log filters"
        onSubmit={(e) => {
          e.preventDefault();
          navigate(urlWith({ action: draft.value.trim() }));
        }}
      >
        <label for="audit-action">Action</label>
        <input id="audit-action" type="text" placeholder="e.g. POST /v1/api-keys" value={draft.value} onInput={(e) => (draft.value = e.currentTarget.value)} />
        <label for="audit-outcome">Outcome</label>
        <select id="audit-outcome" value={outcome} onChange={(e) => navigate(urlWith({ outcome: e.currentTarget.value }))}>
          <option value="">Any outcome</option>
          <option value="success">success</option>
          <option value="failure">failure</option>
        </select>
        <button type="submit">Filter</button>
      </form>
      <ErrorLine message={error.value} />
      <p role="status" class="status">
        {data ? `${data.total.toLocaleString()} entr${data.total === 1 ? 'y' : 'ies'}` : 'Loading…'}
      </p>
      {data && data.entries.length > 0 && (
        <>
          <table>
            <caption class="visually-hidden">Audit log, newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">Action</th>
                <th scope="col">Target</th>
                <th scope="col">Outcome</th>
                <th scope="col">From</th>
              </tr>
            </thead>
            <tbody>
              {data.entries.map((e) => (
                <tr key={e.id}>
                  <td class="nowrap">
                    <Time iso={e.at} />
                  </td>
                  <td title={e.actor_id}>
                    {e.actor_email || e.actor_id || 'anonymous'} <span class="node-type">{e.actor_via}</span>
                  </td>
                  <td>
                    <code>{e.action}</code>
                  </td>
                  <td>
                    {e.target_type} <span class="node-type">{e.target_id}</span>
                  </td>
                  <td class={e.outcome === 'success' ? '' : 'error'}>{e.outcome}</td>
                  <td>{e.client_ip}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <nav class="pager" aria-label="Audit log pages">
            <PageLink href={urlWith({ offset: Math.max(0, offset - AUDIT_PAGE) || '' })} enabled={offset > 0} label="Previous page" />
            <span>
              {offset + 1}–{offset + data.entries.length} of {data.total}
            </span>
            <PageLink href={urlWith({ offset: offset + AUDIT_PAGE })} enabled={offset + AUDIT_PAGE < data.total} label="Next page" />
          </nav>
        </>
      )}
    </section>
  );
}

interface Certificate {
  id: string;
  subject: string;
  sans: string[];
  issuer: string;
  fingerprint_sha256: string;
  not_before: string;
  not_after: string;
  days_to_expiry: number;
  chain_length: number;
  active: boolean;
  created_by: string;
}

interface TlsStatus {
  https_enabled: boolean;
  port: number | null;
  active_certificate: { subject: string; days_to_expiry: number } | null;
}

/** Certificates closer than this to their end are marked. */
const EXPIRY_WARNING_DAYS = 30;

/** The TLS certificate HTTPS serves (/settings/tls): the stored ones with their expiry, an upload, activation. Keys are never shown. */
export function TlsPage() {
  const certificates = useSignal<Certificate[] | null>(null);
  const status = useSignal<{ message: string; data: TlsStatus } | null>(null);
  const error = useSignal<string | null>(null);
  const notice = useSignal<string | null>(null);
  const version = useSignal(0);
  const activate = useSignal(true);

  useEffect(() => {
    const controller = new AbortController();
    api<{ certificates: Certificate[] }>('GET', '/v1/tls/certificates', { signal: controller.signal })
      .then(({ data }) => (certificates.value = data.certificates))
      .catch((err: unknown) => {
        if (!controller.signal.aborted) error.value = errorText(err);
      });
    api<TlsStatus>('GET', '/v1/tls/status', { signal: controller.signal })
      .then((answer) => (status.value = answer))
      .catch(() => undefined);
    return () => controller.abort();
  }, [version.value]);

  async function change(work: () => Promise<{ message: string }>) {
    error.value = null;
    try {
      notice.value = (await work()).message;
      version.value++;
    } catch (err) {
      error.value = errorText(err);
    }
  }

  async function upload(event: Event) {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const cert = (form.elements.namedItem('cert') as HTMLInputElement).files?.[0];
    const key = (form.elements.namedItem('key') as HTMLInputElement).files?.[0];
    if (!cert || !key) return;
    const body = new FormData();
    body.append('cert', cert);
    body.append('key', key);
    body.append('activate', String(activate.value));
    await change(() => api('POST', '/v1/tls/certificates', { form: body }));
    if (!error.value) form.reset();
  }

  const manage = can('settings:manage');
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">TLS certificate</h1>
      <SettingsTabs current="/settings/tls" />
      {status.value && <p class="status">{status.value.message}.</p>}
      <ErrorLine message={error.value} />
      <NoticeLine message={notice.value} />
      {certificates.value && certificates.value.length === 0 && <p class="empty">No certificate stored.</p>}
      {certificates.value && certificates.value.length > 0 && (
        <table>
          <caption class="visually-hidden">Stored certificates, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Subject</th>
              <th scope="col">Names</th>
              <th scope="col">Issuer</th>
              <th scope="col">Valid until</th>
              <th scope="col" class="number">Days left</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {certificates.value.map((c) => (
              <tr key={c.id}>
                <th scope="row" title={`SHA-256 ${c.fingerprint_sha256}`}>
                  {c.subject}
                </th>
                <td>{c.sans.join(', ')}</td>
                <td>{c.issuer}</td>
                <td class="nowrap">
                  <Time iso={c.not_after} />
                </td>
                <td class={`number${c.days_to_expiry < EXPIRY_WARNING_DAYS ? ' error' : ''}`}>{c.days_to_expiry}</td>
                <td>
                  {c.active ? (
                    'Active'
                  ) : manage ? (
                    <button type="button" class="secondary" aria-label={`Activate ${c.subject}`} onClick={() => void change(() => api('PUT', `/v1/tls/certificates/${c.id}/activate`))}>
                      Activate
                    </button>
                  ) : (
                    'Stored'
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {manage && (
        <form class="stack" aria-labelledby="upload-title" onSubmit={upload}>
          <h2 id="upload-title">Upload a certificate</h2>
          <label for="tls-cert">Certificate (PEM: the leaf first, then its intermediates)</label>
          <input id="tls-cert" name="cert" type="file" accept=".pem,.crt,.cer" required />
          <label for="tls-key">Private key (PEM, unencrypted; sealed on the server, never shown again)</label>
          <input id="tls-key" name="key" type="file" accept=".pem,.key" required />
          <label class="inline">
            <input type="checkbox" checked={activate.value} onChange={(e) => (activate.value = e.currentTarget.checked)} /> Serve it now
          </label>
          <div>
            <button type="submit">Upload</button>
          </div>
        </form>
      )}
    </section>
  );
}

interface LdapSettings {
  server_url: string;
  bind_dn: string;
  bind_password: string;
  search_base: string;
  user_filter: string;
  start_tls: boolean;
  default_role_id: string;
}

interface SamlSettings {
  entity_id: string;
  sso_url: string;
  certificate: string;
  attribute_mapping: { email: string };
}

interface AuthSettings {
  method: 'local' | 'ldap' | 'saml';
  ldap: LdapSettings;
  saml: SamlSettings;
}

interface Check {
  name: string;
  passed: boolean;
  message: string;
}

/** Secrets come back as this from the API; sent back unchanged, the stored value is kept. */
const REDACTED = '[redacted]';

const LDAP_FIELDS: ReadonlyArray<{ key: keyof LdapSettings & string; label: string; secret?: boolean }> = [
  { key: 'server_url', label: 'Server URL (ldap:// or ldaps://)' },
  { key: 'bind_dn', label: 'Service bind DN' },
  { key: 'bind_password', label: 'Service bind password', secret: true },
  { key: 'search_base', label: 'Search base' },
  { key: 'user_filter', label: 'User filter (%s is the user name)' },
];

const SAML_FIELDS: ReadonlyArray<{ key: 'entity_id' | 'sso_url' | 'certificate'; label: string; secret?: boolean }> = [
  { key: 'entity_id', label: 'Identity provider entity ID' },
  { key: 'sso_url', label: 'SSO URL' },
  { key: 'certificate', label: 'Identity provider signing certificate (PEM)', secret: true },
];

function CheckList({ label, checks }: { label: string; checks: Check[] }) {
  return (
    <ul class="plain-list checks" aria-label={label}>
      {checks.map((c) => (
        <li key={c.name} class={c.passed ? 'notice' : 'error'}>
          {c.passed ? 'Passed' : 'Failed'}: {c.name}: {c.message}
        </li>
      ))}
    </ul>
  );
}

/**
 * How users log in (/settings/auth): the method, the LDAP and SAML settings, and their tests (the API's
 * steps and checks, each with its result). Secrets show as [redacted]; left so, the stored value stays.
 */
export function AuthSettingsPage() {
  const stored = useSignal<AuthSettings | null>(null);
  const draft = useSignal<AuthSettings | null>(null);
  const username = useSignal('');
  const ldapSteps = useSignal<Check[] | null>(null);
  const samlChecks = useSignal<Check[] | null>(null);
  const error = useSignal<string | null>(null);
  const notice = useSignal<string | null>(null);
  const manage = can('settings:manage');

  useEffect(() => {
    const controller = new AbortController();
    api<AuthSettings>('GET', '/v1/settings/auth', { signal: controller.signal })
      .then(({ data }) => {
        stored.value = data;
        draft.value = data;
      })
      .catch((err: unknown) => {
        if (!controller.signal.aborted) error.value = errorText(err);
      });
    return () => controller.abort();
  }, []);

  async function act<T>(work: () => Promise<{ data: T; message: string }>, then: (data: T) => void) {
    error.value = null;
    notice.value = null;
    try {
      const { data, message } = await work();
      notice.value = message;
      then(data);
    } catch (err) {
      error.value = errorText(err);
    }
  }

  const d = draft.value;
  if (!d)
    return error.value ? (
      <p class="error" role="alert">
        {error.value}
      </p>
    ) : (
      <p role="status">Loading…</p>
    );
  const setLdap = (change: Partial<LdapSettings>) => (draft.value = { ...d, ldap: { ...d.ldap, ...change } });
  const setSaml = (change: Partial<SamlSettings>) => (draft.value = { ...d, saml: { ...d.saml, ...change } });
  const ldapChange = Object.fromEntries(LDAP_FIELDS.map((f) => [f.key, d.ldap[f.key]]));
  const samlChange = { entity_id: d.saml.entity_id, sso_url: d.saml.sso_url, certificate: d.saml.certificate, attribute_mapping: d.saml.attribute_mapping };

  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Authentication</h1>
      <SettingsTabs current="/settings/auth" />
      <ErrorLine message={error.value} />
      <NoticeLine message={notice.value} />
      <form
        class="stack"
        aria-label="Authentication settings"
        onSubmit={(e) => {
          e.preventDefault();
          void act(
            () => api<AuthSettings>('PUT', '/v1/settings/auth', { body: { method: d.method, ldap: ldapChange, saml: samlChange } }),
            (data) => {
              stored.value = data;
              draft.value = data;
            },
          );
        }}
      >
        <fieldset disabled={!manage} class="plain-fieldset">
          <legend class="visually-hidden">Authentication settings</legend>
          <label for="auth-method">Login method</label>
          <select id="auth-method" value={d.method} onChange={(e) => (draft.value = { ...d, method: e.currentTarget.value as AuthSettings['method'] })}>
            <option value="local">Local passwords</option>
            <option value="ldap">LDAP directory</option>
            <option value="saml">SAML single sign-on</option>
          </select>
          <h2>LDAP</h2>
          {/* A secret being typed is masked; the API's placeholder shows as the word it is. */}
          {LDAP_FIELDS.map((f) => (
            <div key={f.key} class="stack">
              <label for={`ldap-${f.key}`}>{f.label}</label>
              {f.secret === true && d.ldap[f.key] !== REDACTED ? (
                <input id={`ldap-${f.key}`} type="password" value={String(d.ldap[f.key])} onInput={(e) => setLdap({ [f.key]: e.currentTarget.value })} />
              ) : (
                <input id={`ldap-${f.key}`} type="text" value={String(d.ldap[f.key])} onInput={(e) => setLdap({ [f.key]: e.currentTarget.value })} />
              )}
            </div>
          ))}
          <label class="inline">
            <input type="checkbox" checked={d.ldap.start_tls} onChange={(e) => setLdap({ start_tls: e.currentTarget.checked })} /> StartTLS
          </label>
          <div class="row">
            <label for="ldap-test-user">User to look up</label>
            <input id="ldap-test-user" type="text" value={username.value} onInput={(e) => (username.value = e.currentTarget.value)} />
            <button
              type="button"
              class="secondary"
              onClick={() => void act(() => api<{ steps: Check[] }>('POST', '/v1/settings/auth/test', { body: { ldap: ldapChange, ...(username.value ? { username: username.value } : {}) } }), (data) => (ldapSteps.value = data.steps))}
            >
              Test LDAP
            </button>
          </div>
          {ldapSteps.value && <CheckList label="LDAP test steps" checks={ldapSteps.value} />}
          <h2>SAML</h2>
          {SAML_FIELDS.map((f) =>
            f.key === 'certificate' ? (
              <div key={f.key} class="stack">
                <label for="saml-certificate">{f.label}</label>
                <textarea id="saml-certificate" class="code" rows={4} spellcheck={false} value={d.saml.certificate} onInput={(e) => setSaml({ certificate: e.currentTarget.value })} />
              </div>
            ) : (
              <div key={f.key} class="stack">
                <label for={`saml-${f.key}`}>{f.label}</label>
                <input id={`saml-${f.key}`} type="text" value={d.saml[f.key]} onInput={(e) => setSaml({ [f.key]: e.currentTarget.value })} />
              </div>
            ),
          )}
          <label for="saml-email">Email attribute</label>
          <input id="saml-email" type="text" value={d.saml.attribute_mapping.email} onInput={(e) => setSaml({ attribute_mapping: { ...d.saml.attribute_mapping, email: e.currentTarget.value } })} />
          <div class="row">
            <button type="button" class="secondary" onClick={() => void act(() => api<{ checks: Check[] }>('POST', '/v1/admin/settings/auth/saml/test', { body: samlChange }), (data) => (samlChecks.value = data.checks))}>
              Test SAML
            </button>
          </div>
          {samlChecks.value && <CheckList label="SAML checks" checks={samlChecks.value} />}
        </fieldset>
        {manage && (
          <div>
            <button type="submit">Save settings</button>
          </div>
        )}
      </form>
    </section>
  );
}

type ApplianceValue = string | number;
interface ApplianceConfig {
  stored: string[];
  updated_at: string | null;
  updated_by: string | null;
  [field: string]: ApplianceValue | string[] | null;
}

const APPLIANCE_META = new Set(['stored', 'updated_at', 'updated_by']);
/** "artifact_retention_days" as "Artifact retention days". */
const fieldLabel = (field: string) => field.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());

/**
 * The appliance's runtime settings (/settings/appliance): every field the API answers, shown as it answers it
 * (so a new setting appears without a console change), which an operator set here, a change, and a reset to
 * the environment's default. Every process applies a change within a heartbeat, without a restart.
 */
export function AppliancePage() {
  const config = useSignal<ApplianceConfig | null>(null);
  const draft = useSignal<Record<string, string>>({});
  const error = useSignal<string | null>(null);
  const notice = useSignal<string | null>(null);
  const manage = can('settings:manage');

  const show = (data: ApplianceConfig) => {
    config.value = data;
    draft.value = Object.fromEntries(Object.entries(data).filter(([k]) => !APPLIANCE_META.has(k)).map(([k, v]) => [k, String(v)]));
  };

  useEffect(() => {
    const controller = new AbortController();
    api<ApplianceConfig>('GET', '/v1/appliance/config', { signal: controller.signal })
      .then(({ data }) => show(data))
      .catch((err: unknown) => {
        if (!controller.signal.aborted) error.value = errorText(err);
      });
    return () => controller.abort();
  }, []);

  async function put(body: Record<string, ApplianceValue | null>) {
    error.value = null;
    try {
      const { data, message } = await api<ApplianceConfig>('PUT', '/v1/appliance/config', { body });
      notice.value = message;
      show(data);
    } catch (err) {
      error.value = errorText(err);
    }
  }

  const c = config.value;
  const fields = c ? Object.keys(c).filter((k) => !APPLIANCE_META.has(k)) : [];
  /** The fields whose draft differs from the answer, typed as the answer has them. */
  const changes = (): Record<string, ApplianceValue> =>
    Object.fromEntries(fields.filter((f) => draft.value[f] !== String(c![f])).map((f) => [f, typeof c![f] === 'number' ? Number(draft.value[f]) : draft.value[f]!]));

  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Appliance</h1>
      <SettingsTabs current="/settings/appliance" />
      <ErrorLine message={error.value} />
      <NoticeLine message={notice.value} />
      {!c && !error.value && <p role="status">Loading…</p>}
      {c && (
        <form
          class="stack"
          aria-label="Appliance settings"
          onSubmit={(e) => {
            e.preventDefault();
            const body = changes();
            if (Object.keys(body).length > 0) void put(body);
          }}
        >
          <p class="status">
            {c.updated_at ? (
              <>
                Last changed <Time iso={c.updated_at} /> by {c.updated_by}.
              </>
            ) : (
              'Every setting is the environment’s.'
            )}
          </p>
          <fieldset disabled={!manage} class="plain-fieldset">
            <legend class="visually-hidden">Appliance settings</legend>
            {fields.map((f) => (
              <div key={f} class="row">
                <label for={`appliance-${f}`} class="setting-label">
                  {fieldLabel(f)}
                </label>
                {typeof c[f] === 'number' ? (
                  <input id={`appliance-${f}`} type="number" class="setting-input" value={draft.value[f]} onInput={(e) => (draft.value = { ...draft.value, [f]: e.currentTarget.value })} />
                ) : (
                  <input id={`appliance-${f}`} type="text" class="setting-input" value={draft.value[f]} onInput={(e) => (draft.value = { ...draft.value, [f]: e.currentTarget.value })} />
                )}
                {c.stored.includes(f) ? (
                  <>
                    <span class="tag">set here</span>
                    {manage && (
                      <button type="button" class="secondary" aria-label={`Reset ${fieldLabel(f)} to the environment's`} onClick={() => void put({ [f]: null })}>
                        Reset
                      </button>
                    )}
                  </>
                ) : (
                  <span class="node-type">environment</span>
                )}
              </div>
            ))}
          </fieldset>
          {manage && (
            <div>
              <button type="submit">Save changes</button>
            </div>
          )}
        </form>
      )}
    </section>
  );
}
