import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode, useEffect } from 'react';
import { createRoot } from 'react-dom/client';
import { Redirect, Route, Switch, useLocation } from 'wouter';
import { ApiError } from './api/errors';
import { AreaScreen } from './screens/area/area-screen';
import { LoadScreen } from './screens/load/load-screen';
import { LoadsScreen } from './screens/loads/loads-screen';
import { ReviewScreen } from './screens/review/review-screen';
import { SignInScreen } from './screens/sign-in/sign-in-screen';
import { SessionProvider, useSession } from './session-context';
import { Announcer } from './ui/announcer';
import { Layout } from './ui/layout';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 15_000,
      // A refused request (4xx) is not retried; a lost connection is, with back-off.
      retry: (failures, error) =>
        failures < 4 && error instanceof ApiError && (error.offline || error.status >= 500),
      refetchOnWindowFocus: false,
    },
  },
});

/** Each screen names itself in the document's title too. */
function useTitle() {
  const [location] = useLocation();
  useEffect(() => {
    const area = location.split('/')[1] || 'loads';
    document.title = `${area[0]?.toUpperCase()}${area.slice(1)} · Envoy`;
  }, [location]);
}

function Screens() {
  const { status } = useSession();
  useTitle();
  if (status === 'loading') return <p className="boot">Loading…</p>;
  if (status === 'signed-out') return <SignInScreen />;
  return (
    <Layout>
      <Switch>
        <Route path="/">
          <Redirect to="/loads" />
        </Route>
        <Route path="/sign-in">
          <Redirect to="/loads" />
        </Route>
        <Route path="/loads">
          <LoadsScreen />
        </Route>
        <Route path="/loads/:id">{(p) => <LoadScreen key={p.id} loadId={p.id} />}</Route>
        <Route path="/review">
          <ReviewScreen />
        </Route>
        <Route path="/carriers">
          <AreaScreen title="Carriers" about="Carriers, their vetting, lanes and tiers." />
        </Route>
        <Route path="/calls">
          <AreaScreen title="Calls" about="Calls and English-proficiency tests." />
        </Route>
        <Route path="/results">
          <AreaScreen title="Results" about="What the agent achieves, by lane, channel and period." />
        </Route>
        <Route path="/settings">
          <AreaScreen title="Settings" about="The agent's settings, members, API keys and webhooks." />
        </Route>
        <Route>
          <section>
            <h1>Not found</h1>
            <p>No screen at this address.</p>
          </section>
        </Route>
      </Switch>
    </Layout>
  );
}

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <SessionProvider>
          <Announcer>
            <Screens />
          </Announcer>
        </SessionProvider>
      </QueryClientProvider>
    </StrictMode>,
  );
}
