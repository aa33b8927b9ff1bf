// The shell: who is logged in, the navigation, the page for the URL, and the
// keys that work everywhere (`/` to search, Esc handled by the page).
import { useEffect } from 'preact/hooks';
import { navigate, onLinkClick, place, safeReturnPath, withParams } from './router.ts';
import { can, currentSession, logout, session } from './session.ts';
import { AssistantPanel, AssistantToggle } from './assistant/panel.tsx';
import { LoginPage } from './pages/login.tsx';
import { SearchPage } from './pages/search.tsx';
import { IncidentsPage } from './pages/incidents.tsx';
import { IncidentPage } from './pages/incident.tsx';
import { NodePage } from './pages/node.tsx';
import { LeadsPage, ObservationsPage } from './pages/triage-lists.tsx';
import { RulesPage, SigmaImportPage } from './pages/rules.tsx';
import { RulePage } from './pages/rule.tsx';
import { CoveragePage } from './pages/coverage.tsx';
import { ReportsPage } from './pages/reports.tsx';
import { ApiKeysPage, NotificationsPage, UsersPage } from './pages/settings.tsx';
import { AppliancePage, AuditPage, AuthSettingsPage, HealthPage, TlsPage } from './pages/operations.tsx';
import { ThreatIntelPage } from './pages/threat-intel.tsx';
import { DecoderPage, DecodersPage } from './pages/decoders.tsx';
import { GraphPage } from './pages/graph.tsx';

/** The main navigation; a page shows only to roles holding the permission it reads with (the API refuses the rest anyway). */
const NAV: ReadonlyArray<{ path: string; label: string; permission?: string }> = [
  { path: '/search', label: 'Search' },
  { path: '/incidents', label: 'Incidents' },
  { path: '/leads', label: 'Leads' },
  { path: '/observations', label: 'Observations' },
  { path: '/graph', label: 'Graph', permission: 'graph:read' },
  { path: '/rules', label: 'Rules', permission: 'signals:read' },
  { path: '/parsing', label: 'Parsing', permission: 'signals:read' },
  { path: '/reports', label: 'Reports', permission: 'reports:read' },
  // Everyone manages their own API keys here; users and notifications show to the roles that may see them.
  { path: '/settings', label: 'Settings' },
];

function Page() {
  const { path } = place.value;
  if (path === '/' || path === '/search') return <SearchPage />;
  if (path === '/incidents') return <IncidentsPage />;
  if (path === '/leads') return <LeadsPage />;
  if (path === '/observations') return <ObservationsPage />;
  if (path === '/rules') return <RulesPage />;
  if (path === '/rules/import') return <SigmaImportPage />;
  if (path === '/rules/new') return <RulePage id={null} />;
  if (path === '/parsing') return <CoveragePage />;
  if (path === '/graph') return <GraphPage />;
  if (path === '/reports') return <ReportsPage />;
  if (path === '/settings' || path === '/settings/api-keys') return <ApiKeysPage />;
  if (path === '/settings/users') return <UsersPage />;
  if (path === '/settings/notifications') return <NotificationsPage />;
  if (path === '/settings/health') return <HealthPage />;
  if (path === '/settings/audit') return <AuditPage />;
  if (path === '/settings/tls') return <TlsPage />;
  if (path === '/settings/auth') return <AuthSettingsPage />;
  if (path === '/settings/threat-intel') return <ThreatIntelPage />;
  if (path === '/settings/appliance') return <AppliancePage />;
  if (path === '/parsing/decoders') return <DecodersPage />;
  if (path === '/parsing/decoders/new') return <DecoderPage id={null} />;
  const decoder = /^\/parsing\/decoders\/([^/]+)$/.exec(path);
  if (decoder) return <DecoderPage id={decodeURIComponent(decoder[1]!)} />;
  const rule = /^\/rules\/([^/]+)$/.exec(path);
  if (rule) return <RulePage id={decodeURIComponent(rule[1]!)} />;
  const incident = /^\/incidents\/([^/]+)$/.exec(path);
  if (incident) return <IncidentPage id={decodeURIComponent(incident[1]!)} />;
  const node = /^\/nodes\/([^/]+)$/.exec(path);
  if (node) return <NodePage id={decodeURIComponent(node[1]!)} />;
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Page not found</h1>
      <p>
        There is no page at <code>{path}</code>. <a href="/search">Go to search</a>.
      </p>
    </section>
  );
}

function focusSearchKey(event: KeyboardEvent): void {
  if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target as HTMLElement | null;
  if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
  event.preventDefault();
  const box = document.getElementById('query');
  if (box) return box.focus();
  navigate('/search');
  requestAnimationFrame(() => document.getElementById('query')?.focus());
}

export function App() {
  const state = session.value;
  const { path, params } = place.value;

  useEffect(() => {
    addEventListener('keydown', focusSearchKey);
    return () => removeEventListener('keydown', focusSearchKey);
  }, []);

  // Not logged in: every page but login sends there, keeping the place to come back to.
  useEffect(() => {
    if (state === null && path !== '/login') navigate(withParams('/login', { next: safeReturnPath(path + location.search) }), { replace: true });
    if (state !== null && state !== 'unknown' && path === '/login') navigate(safeReturnPath(params.get('next')) ?? '/search', { replace: true });
  }, [state, path]);

  if (state === 'unknown') return <p class="loading" role="status">Loading…</p>;
  if (state === null || path === '/login') return <LoginPage />;
  const user = currentSession.value?.user;
  return (
    <div class="shell" onClick={onLinkClick}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="/search" aria-label="cairn home">
          cairn
        </a>
        <nav aria-label="Main">
          <ul>
            {NAV.filter((item) => !item.permission || can(item.permission)).map((item) => (
              <li key={item.path}>
                <a href={item.path} aria-current={path === item.path || path.startsWith(`${item.path}/`) || (item.path === '/search' && path === '/') ? 'page' : undefined}>
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span title={user?.email}>
            {user?.name || user?.email || 'signed in'} <span class="role">({user?.role_name ?? 'service'})</span>
          </span>
          <AssistantToggle />
          <button type="button" onClick={() => void logout()}>
            Log out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Page />
      </main>
      <AssistantPanel />
    </div>
  );
}
