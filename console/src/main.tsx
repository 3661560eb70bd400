import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { Api, ApiError } from './api';
import { ErrorBanner, TextInput } from './components';
import { ConfigsPage } from './pages/configs';
import { GuardrailsPage } from './pages/guardrails';
import { LogsPage } from './pages/logs';
import { PromptsPage } from './pages/prompts';
import { TracePage } from './pages/trace';
import { lazyPage } from './lazy';
import { ReadGate } from './read-gate';
import { useRoute } from './router';
import { PageHeading, Sidebar, SkipLink } from './shell';
import { credentialFrom, forgetCredential, loadCredential, saveCredential, type Credential } from './session';

function useTheme(): [string, () => void] {
  const initial = sessionStorage.getItem('gw.console.theme') ?? (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
  const [theme, setTheme] = useState(initial);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    sessionStorage.setItem('gw.console.theme', theme);
  }, [theme]);
  return [theme, () => setTheme(theme === 'dark' ? 'light' : 'dark')];
}

function SignIn({ onSignedIn }: { onSignedIn: (credential: Credential) => void }) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<Error>();
  return (
    <main class="signin">
      <h1>gw console</h1>
      <form
        aria-label="Sign in"
        onSubmit={(event) => {
          event.preventDefault();
          const credential = credentialFrom(value);
          // Any read the key may do proves it; a 403 still means the key is valid, only narrower.
          new Api(credential).get('/v1/workspaces', { limit: '1' }).then(
            () => onSignedIn(credential),
            (thrown: Error) => (thrown instanceof ApiError && thrown.status === 403 ? onSignedIn(credential) : setError(thrown)),
          );
        }}
      >
        <TextInput label="gw API key or JWT" name="credential" type="password" value={value} onInput={setValue} />
        <button type="submit" disabled={!value.trim()}>
          Sign in
        </button>
        <p class="muted">Kept in this tab's session storage only; closing the tab signs you out.</p>
        <ErrorBanner error={error} />
      </form>
    </main>
  );
}

// The pages that manage control-plane areas load on first use: the entry holds only what the first page needs.
const AnalyticsPage = lazyPage(() => import('./pages/analytics').then((module) => module.AnalyticsPage));
const PoliciesPage = lazyPage(() => import('./pages/policies').then((module) => module.PoliciesPage));
const PlaygroundPage = lazyPage(() => import('./pages/playground').then((module) => module.PlaygroundPage));
const KeysPage = lazyPage(() => import('./pages/keys').then((module) => module.KeysPage));
const WorkspacePage = lazyPage(() => import('./pages/workspace').then((module) => module.WorkspacePage));
const AreaPage = lazyPage(() => import('./pages/areas').then((module) => module.AreaPage));

function Page({ api, route }: { api: Api; route: string[] }) {
  return (
    <ReadGate key={route[0] || 'logs'} api={api} page={route[0] || 'logs'}>
      <PageContent api={api} route={route} />
    </ReadGate>
  );
}

function PageContent({ api, route }: { api: Api; route: string[] }) {
  const [page, id] = route;
  switch (page) {
    case 'traces':
      return <TracePage api={api} traceId={id} />;
    case 'analytics':
      return <AnalyticsPage api={api} />;
    case 'playground':
      return <PlaygroundPage api={api} />;
    case 'keys':
      return <KeysPage api={api} />;
    case 'providers':
    case 'mcp':
    case 'deployments':
    case 'exports':
    case 'audit':
    case 'users':
      return <AreaPage key={page} api={api} area={page} />;
    case 'workspace':
      return <WorkspacePage api={api} />;
    case 'configs':
      return <ConfigsPage api={api} />;
    case 'prompts':
      return <PromptsPage api={api} />;
    case 'policies':
      return <PoliciesPage api={api} />;
    case 'guardrails':
      return <GuardrailsPage api={api} />;
    default:
      return <LogsPage api={api} logId={id} />;
  }
}

function App() {
  const [credential, setCredential] = useState(loadCredential);
  const [theme, toggleTheme] = useTheme();
  const route = useRoute();
  if (!credential)
    return (
      <SignIn
        onSignedIn={(signedIn) => {
          saveCredential(signedIn);
          setCredential(signedIn);
        }}
      />
    );
  const api = new Api(credential);
  const page = route[0] || 'logs';
  return (
    <div class="shell">
      <SkipLink />
      <Sidebar api={api} current={page} />
      <div class="body">
        <header class="top">
          <span class="spacer" />
          <span class="muted">{credential.kind === 'jwt' ? 'JWT (read only)' : 'API key'}</span>
          <button type="button" onClick={toggleTheme} aria-label={`Switch to ${theme === 'dark' ? 'light' : 'dark'} mode`}>
            {theme === 'dark' ? 'Light' : 'Dark'}
          </button>
          <button
            type="button"
            onClick={() => {
              forgetCredential();
              setCredential(undefined);
            }}
          >
            Sign out
          </button>
        </header>
        <main id="content">
          <PageHeading page={page} />
          <Page api={api} route={route} />
        </main>
      </div>
    </div>
  );
}

render(<App />, document.getElementById('app')!);
