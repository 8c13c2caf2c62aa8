import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { lazy, StrictMode, Suspense, useEffect } from 'react';
import { createRoot } from 'react-dom/client';
import { Redirect, Route, Switch, useLocation } from 'wouter';
import { ApiError } from './api/errors';
import { AcceptInvitationScreen } from './screens/accept-invitation/accept-invitation-screen';
import { CallScreen } from './screens/calls/call-screen';
import { CallsScreen } from './screens/calls/calls-screen';
import { ElpScreen } from './screens/calls/elp-screen';
import { CarrierScreen } from './screens/carriers/carrier-screen';
import { CarriersScreen } from './screens/carriers/carriers-screen';
import { LoadScreen } from './screens/load/load-screen';
import { LoadsScreen } from './screens/loads/loads-screen';
import { ReviewScreen } from './screens/review/review-screen';
import { SettingsScreen } from './screens/settings/settings-screen';
import { SignInScreen } from './screens/sign-in/sign-in-screen';
import { SessionProvider, useSession } from './session-context';
import { Announcer } from './ui/announcer';
import { Layout } from './ui/layout';
import './styles.css';

/** The results screen and its charting library: a chunk of its own, loaded when first opened. */
const ResultsScreen = lazy(() => import('./screens/results/results-screen'));

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
  const [location] = useLocation();
  useTitle();
  if (status === 'loading') return <p className="boot">Loading…</p>;
  if (status === 'signing-out')
    return (
      <p className="boot" role="status">
        Signing out…
      </p>
    );
  if (location.startsWith('/accept-invitation')) return <AcceptInvitationScreen />;
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
          <CarriersScreen />
        </Route>
        <Route path="/carriers/:id">{(p) => <CarrierScreen key={p.id} carrierId={p.id} />}</Route>
        <Route path="/calls">
          <CallsScreen />
        </Route>
        <Route path="/calls/elp/:id">{(p) => <ElpScreen key={p.id} testId={p.id} />}</Route>
        <Route path="/calls/:id">{(p) => <CallScreen key={p.id} callId={p.id} />}</Route>
        <Route path="/results">
          <Suspense fallback={<p>Loading the results…</p>}>
            <ResultsScreen />
          </Suspense>
        </Route>
        <Route path="/settings">
          <SettingsScreen section={undefined} />
        </Route>
        <Route path="/settings/:section">{(p) => <SettingsScreen section={p.section} />}</Route>
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
