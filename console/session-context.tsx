import { useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import { flushSync } from 'react-dom';
import { api, unwrap } from './api/client';
import { ApiError } from './api/errors';
import { session } from './api/session';

type Status = 'loading' | 'signed-out' | 'signed-in' | 'signing-out';

interface SessionValue {
  status: Status;
  organizationId: string | null;
  signIn(email: string, password: string): Promise<void>;
  signOut(): Promise<void>;
  /** Why the last sign-out failed (the session goes on); null until then, and again at the next try. */
  signOutProblem: unknown;
  switchOrganization(id: string): void;
}

const Session = createContext<SessionValue | null>(null);

/** The sign-in by refresh cookie of a reloaded page, started as the script runs (before the first render). */
const resumed = session.hasSession() ? session.refresh().catch(() => false) : Promise.resolve(false);

/** Sign-in, sign-out and the organization switch; a reload signs in again with the refresh cookie. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const client = useQueryClient();
  const [status, setStatus] = useState<Status>('loading');
  const [organizationId, setOrganizationId] = useState<string | null>(null);
  const [signOutProblem, setSignOutProblem] = useState<unknown>(null);

  useEffect(() => {
    let live = true;
    void resumed.then((ok) => live && setStatus(ok ? 'signed-in' : 'signed-out'));
    const off = session.subscribe(() => {
      if (!session.token) setStatus('signed-out');
    });
    return () => {
      live = false;
      off();
    };
  }, []);

  const signIn = useCallback(async (email: string, password: string) => {
    const tokens = await unwrap(
      api.POST('/api/v1/auth/login', { body: { email, password, use_cookie: true } }),
    );
    session.accept(tokens);
    setStatus('signed-in');
  }, []);

  const signOut = useCallback(async () => {
    // Nothing may reach the server with the token after the logout ends the session there: it
    // would be refused (401) and retried by a refresh refused too. The screens and the event
    // stream unmount first, queries are cancelled and requests still in flight aborted.
    flushSync(() => {
      setSignOutProblem(null);
      setStatus('signing-out');
    });
    await client.cancelQueries();
    session.abortRequests();
    try {
      await unwrap(api.POST('/api/v1/auth/logout', { body: {} }));
    } catch (err) {
      // Signed out already (401): the session is over either way.
      if (!(err instanceof ApiError) || err.status !== 401) {
        setSignOutProblem(err);
        setStatus('signed-in');
        return;
      }
    }
    session.clear();
    session.organizationId = null;
    setOrganizationId(null);
    client.clear();
    setStatus('signed-out');
  }, [client]);

  const switchOrganization = useCallback(
    (id: string) => {
      session.organizationId = id;
      setOrganizationId(id);
      client.clear();
    },
    [client],
  );

  const value = useMemo(
    () => ({ status, organizationId, signIn, signOut, signOutProblem, switchOrganization }),
    [status, organizationId, signIn, signOut, signOutProblem, switchOrganization],
  );
  return <Session.Provider value={value}>{children}</Session.Provider>;
}

export function useSession(): SessionValue {
  const value = useContext(Session);
  if (!value) throw new Error('useSession outside SessionProvider');
  return value;
}
