// Settings and administration (/settings/...): API keys (everyone manages
// their own, an admin everyone's; a new key's token shown once), users and
// their roles (admin), notification channels with a test send and the
// delivery history (settings:read to see, settings:manage to change); health,
// the audit log and the TLS certificate are in operations.tsx.
// Secrets are never shown: the API redacts them and the page keeps no copy.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { place } from '../router.ts';
import { can, currentSession } from '../session.ts';
import { Time } from '../time.tsx';
import { SYSTEM_EVENT_TYPES } from '../../../topics/system-event-types.ts';
import { NoticeLine } from '../messages.tsx';

const errorText = (err: unknown) => (err instanceof ApiError ? err.message : String(err));

export function SettingsTabs({ current }: { current: string }) {
  const tabs = [
    { path: '/settings/api-keys', label: 'API keys', show: true },
    { path: '/settings/users', label: 'Users', show: can('admin') },
    { path: '/settings/notifications', label: 'Notifications', show: can('settings:read') },
    { path: '/settings/health', label: 'Health', show: can('health:read') },
    { path: '/settings/tls', label: 'TLS', show: can('settings:read') },
    { path: '/settings/auth', label: 'Authentication', show: can('settings:read') },
    { path: '/settings/threat-intel', label: 'Threat intel', show: can('threatfeed:read') },
    { path: '/settings/appliance', label: 'Appliance', show: can('settings:read') },
    { path: '/settings/audit', label: 'Audit log', show: can('admin') },
  ];
  return (
    <nav aria-label="Settings" class="tabs">
      {tabs
        .filter((t) => t.show)
        .map((t) => (
          <a key={t.path} href={t.path} aria-current={current === t.path || (current === '/settings' && t.path === '/settings/api-keys') ? 'page' : undefined}>
            {t.label}
          </a>
        ))}
    </nav>
  );
}

/** A list asked again whenever `version` changes (after a write). */
function useList<T>(path: string, field: string, version: number, options: { cookieOnly?: boolean; query?: Record<string, string | number> } = {}) {
  const list = useSignal<T[] | null>(null);
  const error = useSignal<string | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    api<Record<string, unknown>>('GET', path, { query: { limit: 200, ...options.query }, signal: controller.signal, cookieOnly: options.cookieOnly })
      .then(({ data }) => {
        list.value = data[field] as T[];
        error.value = null;
      })
      .catch((err: unknown) => {
        if (!controller.signal.aborted) error.value = errorText(err);
      });
    return () => controller.abort();
  }, [path, version]);
  return { list: list.value, error: error.value };
}

// ---------------------------------------------------------------- API keys

interface ApiKey {
  id: string;
  user_id: string;
  name: string;
  permissions: string[];
  expires_at: string | null;
  revoked_at: string | null;
  created_at: string;
  last_used_at: string | null;
}

export function ApiKeysPage() {
  const version = useSignal(0);
  const { list, error } = useList<ApiKey>('/v1/api-keys', 'api_keys', version.value);
  const name = useSignal('');
  const chosen = useSignal<ReadonlySet<string>>(new Set());
  const expires = useSignal('');
  /** The new key's token: in this page's memory until it is dismissed or the page is left, never fetched again. */
  const created = useSignal<{ name: string; token: string } | null>(null);
  const state = useSignal<{ error: string | null; message: string | null }>({ error: null, message: null });
  const mine = [...(currentSession.value?.permissions ?? [])].sort();

  async function create(event: Event) {
    event.preventDefault();
    state.value = { error: null, message: null };
    try {
      const body = { name: name.value, permissions: [...chosen.value], ...(expires.value ? { expires_at: new Date(expires.value).toISOString() } : {}) };
      const { data } = await api<ApiKey & { token: string }>('POST', '/v1/api-keys', { body });
      created.value = { name: data.name, token: data.token };
      name.value = '';
      chosen.value = new Set();
      version.value++;
    } catch (err) {
      state.value = { error: errorText(err), message: null };
    }
  }

  async function revoke(key: ApiKey) {
    if (!confirm(`Revoke the key "${key.name}"? Anything using it stops working at once.`)) return;
    try {
      const { message } = await api('DELETE', `/v1/api-keys/${key.id}`);
      state.value = { error: null, message };
      version.value++;
    } catch (err) {
      state.value = { error: errorText(err), message: null };
    }
  }

  const toggle = (permission: string, on: boolean) => {
    const next = new Set(chosen.value);
    if (on) next.add(permission);
    else next.delete(permission);
    chosen.value = next;
  };

  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">API keys</h1>
      <SettingsTabs current={place.value.path} />
      {created.value && (
        <div class="once" role="alert" aria-labelledby="new-key-title">
          <h2 id="new-key-title">Key "{created.value.name}" created</h2>
          <p>Store this token now: it is shown only this once, and cairn keeps only a hash of it.</p>
          <label for="new-key-token">Token</label>
          <input id="new-key-token" type="text" readOnly value={created.value.token} onFocus={(e) => e.currentTarget.select()} />{' '}
          <button type="button" onClick={() => void navigator.clipboard?.writeText(created.value!.token)}>
            Copy
          </button>{' '}
          <button type="button" class="secondary" onClick={() => (created.value = null)}>
            I have stored it
          </button>
        </div>
      )}
      <form class="stack" aria-labelledby="new-key-heading" onSubmit={create}>
        <h2 id="new-key-heading">New key</h2>
        <label for="key-name">Name</label>
        <input id="key-name" type="text" required value={name.value} onInput={(e) => (name.value = e.currentTarget.value)} />
        <fieldset class="permissions">
          <legend>Permissions (at most your own)</legend>
          {mine.map((p) => (
            <label key={p} class="inline">
              <input type="checkbox" checked={chosen.value.has(p)} onChange={(e) => toggle(p, e.currentTarget.checked)} /> {p}
            </label>
          ))}
        </fieldset>
        <label for="key-expires">Expires (optional)</label>
        <input id="key-expires" type="datetime-local" value={expires.value} onInput={(e) => (expires.value = e.currentTarget.value)} />
        <div>
          <button type="submit" disabled={!name.value.trim() || chosen.value.size === 0}>
            Create key
          </button>
        </div>
      </form>
      <NoticeLine message={state.value.message} />
      {(state.value.error || error) && (
        <p class="error" role="alert">
          {state.value.error ?? error}
        </p>
      )}
      <h2>{can('admin') ? 'Keys of every user' : 'Your keys'}</h2>
      {list && list.length === 0 && <p class="empty">No keys yet.</p>}
      {list && list.length > 0 && (
        <table>
          <caption class="visually-hidden">API keys, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Permissions</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Expires</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((key) => (
              <tr key={key.id}>
                <td>{key.name}</td>
                <td>{key.permissions.join(', ')}</td>
                <td class="nowrap">
                  <Time iso={key.created_at} />
                </td>
                <td class="nowrap">{key.last_used_at ? <Time iso={key.last_used_at} /> : 'never'}</td>
                <td class="nowrap">{key.expires_at ? <Time iso={key.expires_at} /> : 'never'}</td>
                <td>
                  <button type="button" class="secondary" onClick={() => void revoke(key)} aria-label={`Revoke ${key.name}`}>
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

// ---------------------------------------------------------------- users

interface User {
  id: string;
  email: string;
  name: string;
  role_id: string;
  role_name: string;
  active: boolean;
  last_login: string | null;
  source: string;
}

interface Role {
  id: string;
  name: string;
  permissions: string[];
  builtin: boolean;
}

export function UsersPage() {
  const version = useSignal(0);
  const users = useList<User>('/v1/users', 'users', version.value);
  const roles = useList<Role>('/v1/roles', 'roles', version.value);
  const draft = useSignal({ email: '', name: '', role_id: '', password: '' });
  const roleDraft = useSignal<{ name: string; permissions: ReadonlySet<string> }>({ name: '', permissions: new Set() });
  const state = useSignal<{ error: string | null; message: string | null }>({ error: null, message: null });
  // An admin holds every permission: the list a custom role picks from.
  const allPermissions = [...(currentSession.value?.permissions ?? [])].sort();

  async function run(work: () => Promise<{ message: string }>) {
    state.value = { error: null, message: null };
    try {
      const { message } = await work();
      state.value = { error: null, message };
      version.value++;
    } catch (err) {
      state.value = { error: errorText(err), message: null };
    }
  }

  async function create(event: Event) {
    event.preventDefault();
    const d = draft.value;
    await run(() => api('POST', '/v1/users', { body: { email: d.email, name: d.name, role_id: d.role_id || roles.list?.[0]?.id, ...(d.password ? { password: d.password } : {}) } }));
    if (!state.value.error) draft.value = { email: '', name: '', role_id: '', password: '' };
  }

  async function createRole(event: Event) {
    event.preventDefault();
    await run(() => api('POST', '/v1/roles', { body: { name: roleDraft.value.name, permissions: [...roleDraft.value.permissions] } }));
    if (!state.value.error) roleDraft.value = { name: '', permissions: new Set() };
  }

  const togglePermission = (permission: string, on: boolean) => {
    const next = new Set(roleDraft.value.permissions);
    if (on) next.add(permission);
    else next.delete(permission);
    roleDraft.value = { ...roleDraft.value, permissions: next };
  };

  const set = (change: Partial<typeof draft.value>) => (draft.value = { ...draft.value, ...change });
  const roleList = roles.list ?? [];
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Users</h1>
      <SettingsTabs current="/settings/users" />
      {(state.value.error || users.error) && (
        <p class="error" role="alert">
          {state.value.error ?? users.error}
        </p>
      )}
      <NoticeLine message={state.value.message} />
      {users.list && (
        <table>
          <caption class="visually-hidden">Users by email</caption>
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Name</th>
              <th scope="col">Role</th>
              <th scope="col">From</th>
              <th scope="col">Last login</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {users.list.map((user) => (
              <tr key={user.id}>
                <td>{user.email}</td>
                <td>{user.name}</td>
                <td>
                  <select aria-label={`Role of ${user.email}`} value={user.role_id} onChange={(e) => void run(() => api('PUT', `/v1/users/${user.id}`, { body: { role_id: e.currentTarget.value } }))}>
                    {roleList.map((r) => (
                      <option key={r.id} value={r.id}>
                        {r.name}
                      </option>
                    ))}
                  </select>
                </td>
                <td>{user.source}</td>
                <td class="nowrap">{user.last_login ? <Time iso={user.last_login} /> : 'never'}</td>
                <td>
                  <button type="button" class="secondary" aria-label={`${user.active ? 'Deactivate' : 'Activate'} ${user.email}`} onClick={() => void run(() => api('PUT', `/v1/users/${user.id}`, { body: { active: !user.active } }))}>
                    {user.active ? 'Active: deactivate' : 'Inactive: activate'}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form class="stack" aria-labelledby="new-user-heading" onSubmit={create}>
        <h2 id="new-user-heading">New user</h2>
        <label for="user-email">Email</label>
        <input id="user-email" type="email" required value={draft.value.email} onInput={(e) => set({ email: e.currentTarget.value })} />
        <label for="user-name">Name</label>
        <input id="user-name" type="text" required value={draft.value.name} onInput={(e) => set({ name: e.currentTarget.value })} />
        <label for="user-role">Role</label>
        <select id="user-role" value={draft.value.role_id || roleList[0]?.id} onChange={(e) => set({ role_id: e.currentTarget.value })}>
          {roleList.map((r) => (
            <option key={r.id} value={r.id}>
              {r.name}
            </option>
          ))}
        </select>
        <label for="user-password">Password (at least 12 characters; none for directory or SSO users)</label>
        <input id="user-password" type="password" autoComplete="new-password" value={draft.value.password} onInput={(e) => set({ password: e.currentTarget.value })} />
        <div>
          <button type="submit">Create user</button>
        </div>
      </form>
      <h2>Roles</h2>
      <table>
        <caption class="visually-hidden">Roles and their permissions</caption>
        <thead>
          <tr>
            <th scope="col">Role</th>
            <th scope="col">Permissions</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {roleList.map((r) => (
            <tr key={r.id}>
              <th scope="row">
                {r.name}
                {r.builtin ? <span class="tag">built-in</span> : null}
              </th>
              <td>{r.permissions.join(', ')}</td>
              <td>
                {!r.builtin && (
                  <button type="button" class="secondary" aria-label={`Delete role ${r.name}`} onClick={() => void run(() => api('DELETE', `/v1/roles/${r.id}`))}>
                    Delete
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form class="stack" aria-labelledby="new-role-heading" onSubmit={createRole}>
        <h2 id="new-role-heading">New role</h2>
        <label for="role-name">Role name</label>
        <input id="role-name" type="text" required value={roleDraft.value.name} onInput={(e) => (roleDraft.value = { ...roleDraft.value, name: e.currentTarget.value })} />
        <fieldset class="permissions">
          <legend>Permissions</legend>
          {allPermissions.map((p) => (
            <label key={p} class="inline">
              <input type="checkbox" checked={roleDraft.value.permissions.has(p)} onChange={(e) => togglePermission(p, e.currentTarget.checked)} /> {p}
            </label>
          ))}
        </fieldset>
        <div>
          <button type="submit" disabled={!roleDraft.value.name.trim() || roleDraft.value.permissions.size === 0}>
            Create role
          </button>
        </div>
      </form>
    </section>
  );
}

// ---------------------------------------------------------------- notifications

interface Channel {
  id: string;
  name: string;
  type: 'email' | 'slack' | 'webhook';
  enabled: boolean;
  settings: Record<string, unknown>;
}

interface NotificationRule {
  id: string;
  name: string;
  event_types: string[];
  channel_ids: string[];
  cooldown_minutes: number;
  enabled: boolean;
}

interface Delivery {
  id: string;
  at: string;
  event_type: string;
  rule_name: string;
  channel_name: string;
  channel_type: string;
  status: string;
  message: string;
  attempts: number;
}

/** What a channel sends to, without its secrets (the API has already redacted them). */
function destination(channel: Channel): string {
  const s = channel.settings;
  if (channel.type === 'email') return `${String(s.recipients ?? '')} via ${String(s.smtp_host ?? '')}`;
  if (channel.type === 'slack') return `Slack ${String(s.channel || 'webhook')}`;
  return `${String(s.method ?? 'POST')} ${String(s.url ?? '')}`;
}

export function NotificationsPage() {
  const version = useSignal(0);
  // Family B of the notifications routes: the session cookie, without the bearer token (docs/notifications.md).
  const channels = useList<Channel>('/v1/notifications/channels', 'channels', version.value, { cookieOnly: true });
  const history = useList<Delivery>('/v1/notifications/history', 'history', version.value, { cookieOnly: true, query: { limit: 50 } });
  const rules = useList<NotificationRule>('/v1/notifications/rules', 'rules', version.value, { cookieOnly: true });
  const draft = useSignal({ name: '', url: '' });
  const ruleDraft = useSignal<{ name: string; events: ReadonlySet<string>; channels: ReadonlySet<string>; cooldown: string }>({ name: '', events: new Set(), channels: new Set(), cooldown: '15' });
  const state = useSignal<{ error: string | null; message: string | null }>({ error: null, message: null });
  const manage = can('settings:manage');

  async function run(work: () => Promise<{ message: string }>) {
    state.value = { error: null, message: null };
    try {
      const { message } = await work();
      state.value = { error: null, message };
    } catch (err) {
      state.value = { error: errorText(err), message: null };
    }
    version.value++;
  }

  async function create(event: Event) {
    event.preventDefault();
    await run(() => api('POST', '/v1/notifications/channels', { cookieOnly: true, body: { name: draft.value.name, type: 'webhook', settings: { url: draft.value.url } } }));
    if (!state.value.error) draft.value = { name: '', url: '' };
  }

  async function createRule(event: Event) {
    event.preventDefault();
    const d = ruleDraft.value;
    await run(() =>
      api('POST', '/v1/notifications/rules', { cookieOnly: true, body: { name: d.name, event_types: [...d.events], channel_ids: [...d.channels], cooldown_minutes: Number(d.cooldown) } }),
    );
    if (!state.value.error) ruleDraft.value = { name: '', events: new Set(), channels: new Set(), cooldown: '15' };
  }

  const toggled = (set: ReadonlySet<string>, value: string, on: boolean): ReadonlySet<string> => {
    const next = new Set(set);
    if (on) next.add(value);
    else next.delete(value);
    return next;
  };
  // A switched rule shows its new state at once, not after the list is asked again (and goes back if the API refuses).
  const switched = useSignal<Record<string, boolean>>({});
  async function setRuleEnabled(rule: NotificationRule, enabled: boolean) {
    switched.value = { ...switched.value, [rule.id]: enabled };
    await run(() => api('PUT', `/v1/notifications/rules/${rule.id}`, { cookieOnly: true, body: { enabled } }));
    if (state.value.error) switched.value = { ...switched.value, [rule.id]: rule.enabled };
  }
  const channelName = (id: string) => channels.list?.find((c) => c.id === id)?.name ?? id;

  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Notifications</h1>
      <SettingsTabs current="/settings/notifications" />
      {(state.value.error || channels.error) && (
        <p class="error" role="alert">
          {state.value.error ?? channels.error}
        </p>
      )}
      <NoticeLine message={state.value.message} />
      <h2>Channels</h2>
      {channels.list && channels.list.length === 0 && <p class="empty">No channels yet.</p>}
      {channels.list && channels.list.length > 0 && (
        <table>
          <caption class="visually-hidden">Notification channels by name</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Sends to</th>
              <th scope="col">State</th>
              {manage && (
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {channels.list.map((c) => (
              <tr key={c.id}>
                <td>{c.name}</td>
                <td>{c.type}</td>
                <td>{destination(c)}</td>
                <td>{c.enabled ? 'Enabled' : 'Disabled'}</td>
                {manage && (
                  <td>
                    <button type="button" class="secondary" aria-label={`Send a test through ${c.name}`} onClick={() => void run(() => api('POST', `/v1/notifications/channels/${c.id}/test`, { cookieOnly: true }))}>
                      Test send
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {manage && (
        <form class="stack" aria-labelledby="new-channel-heading" onSubmit={create}>
          <h2 id="new-channel-heading">New webhook channel</h2>
          <p class="status">Email and Slack channels are made through the API for now (docs/notifications.md).</p>
          <label for="channel-name">Name</label>
          <input id="channel-name" type="text" required value={draft.value.name} onInput={(e) => (draft.value = { ...draft.value, name: e.currentTarget.value })} />
          <label for="channel-url">URL</label>
          <input id="channel-url" type="url" required value={draft.value.url} onInput={(e) => (draft.value = { ...draft.value, url: e.currentTarget.value })} />
          <div>
            <button type="submit">Create channel</button>
          </div>
        </form>
      )}
      <h2>Rules</h2>
      {rules.list && rules.list.length === 0 && <p class="empty">No rules yet: nothing is sent until a rule names a channel.</p>}
      {rules.list && rules.list.length > 0 && (
        <table>
          <caption class="visually-hidden">Notification rules by name</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">When</th>
              <th scope="col">Sends through</th>
              <th scope="col" class="number">Cooldown</th>
              <th scope="col">Enabled</th>
            </tr>
          </thead>
          <tbody>
            {rules.list.map((r) => (
              <tr key={r.id}>
                <td>{r.name}</td>
                <td>{r.event_types.join(', ')}</td>
                <td>{r.channel_ids.map(channelName).join(', ')}</td>
                <td class="number">{r.cooldown_minutes} min</td>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`${r.name} enabled`}
                    checked={switched.value[r.id] ?? r.enabled}
                    disabled={!manage}
                    onChange={(e) => void setRuleEnabled(r, e.currentTarget.checked)}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {manage && channels.list && channels.list.length > 0 && (
        <form class="stack" aria-labelledby="new-rule-heading" onSubmit={createRule}>
          <h2 id="new-rule-heading">New rule</h2>
          <label for="rule-name">Rule name</label>
          <input id="rule-name" type="text" required value={ruleDraft.value.name} onInput={(e) => (ruleDraft.value = { ...ruleDraft.value, name: e.currentTarget.value })} />
          <fieldset class="permissions">
            <legend>Events</legend>
            {SYSTEM_EVENT_TYPES.map((type) => (
              <label key={type} class="inline">
                <input type="checkbox" checked={ruleDraft.value.events.has(type)} onChange={(e) => (ruleDraft.value = { ...ruleDraft.value, events: toggled(ruleDraft.value.events, type, e.currentTarget.checked) })} /> {type}
              </label>
            ))}
          </fieldset>
          <fieldset class="permissions">
            <legend>Channels</legend>
            {channels.list.map((c) => (
              <label key={c.id} class="inline">
                <input type="checkbox" checked={ruleDraft.value.channels.has(c.id)} onChange={(e) => (ruleDraft.value = { ...ruleDraft.value, channels: toggled(ruleDraft.value.channels, c.id, e.currentTarget.checked) })} /> {c.name}
              </label>
            ))}
          </fieldset>
          <label for="rule-cooldown">Cooldown (minutes: a rule firing again sooner is recorded as skipped)</label>
          <input id="rule-cooldown" type="number" min={0} max={10080} value={ruleDraft.value.cooldown} onInput={(e) => (ruleDraft.value = { ...ruleDraft.value, cooldown: e.currentTarget.value })} />
          <div>
            <button type="submit" disabled={!ruleDraft.value.name.trim() || ruleDraft.value.events.size === 0 || ruleDraft.value.channels.size === 0}>
              Create rule
            </button>
          </div>
        </form>
      )}
      <h2>History</h2>
      {history.error && <p class="error">{history.error}</p>}
      {history.list && history.list.length === 0 && <p class="empty">Nothing sent yet.</p>}
      {history.list && history.list.length > 0 && (
        <table>
          <caption class="visually-hidden">Deliveries, newest first</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Event</th>
              <th scope="col">Rule</th>
              <th scope="col">Channel</th>
              <th scope="col">Outcome</th>
              <th scope="col">Message</th>
            </tr>
          </thead>
          <tbody>
            {history.list.map((d) => (
              <tr key={d.id}>
                <td class="nowrap">
                  <Time iso={d.at} />
                </td>
                <td>{d.event_type}</td>
                <td>{d.rule_name || '(test)'}</td>
                <td>{d.channel_name}</td>
                <td>
                  {d.status}
                  {d.attempts > 1 ? ` after ${d.attempts} attempts` : ''}
                </td>
                <td>{d.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
