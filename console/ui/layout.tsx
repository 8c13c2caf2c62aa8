import type { ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { ApiError } from '../api/errors';
import { useEventStream } from '../api/events';
import { useMe } from '../api/me';
import { useSession } from '../session-context';
import { useAnnounce } from './announcer';

const AREAS = [
  { href: '/loads', label: 'Loads' },
  { href: '/review', label: 'Review' },
  { href: '/carriers', label: 'Carriers' },
  { href: '/calls', label: 'Calls' },
  { href: '/results', label: 'Results' },
  { href: '/settings', label: 'Settings' },
] as const;

/** The frame of every signed-in screen: navigation, organization, sign-out, connection state. */
export function Layout({ children }: { children: ReactNode }) {
  const [location] = useLocation();
  const { organizationId, signOut, signOutProblem, switchOrganization } = useSession();
  const me = useMe(true);
  const announce = useAnnounce();
  const stream = useEventStream(true, organizationId, announce);
  const memberships = me.data?.memberships ?? [];
  const active = me.data?.active_organization;

  return (
    <div className="app">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Envoy</span>
        <nav aria-label="Main">
          <ul>
            {AREAS.map((a) => (
              <li key={a.href}>
                <Link href={a.href} aria-current={location.startsWith(a.href) ? 'page' : undefined}>
                  {a.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="who">
          {memberships.length > 1 ? (
            <label className="org">
              <span>Organization</span>
              <select value={active?.id ?? ''} onChange={(e) => switchOrganization(e.target.value)}>
                {memberships.map((m) => (
                  <option key={m.organization_id} value={m.organization_id}>
                    {m.organization_name}
                  </option>
                ))}
              </select>
            </label>
          ) : active ? (
            <span className="org-name">{active.name}</span>
          ) : null}
          {active ? <span className="role">{active.role}</span> : null}
          <button type="button" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      {stream === 'reconnecting' ? (
        <p role="alert" className="banner">
          Connection lost: reconnecting. Changes made meanwhile will appear once it is back.
        </p>
      ) : null}
      {signOutProblem ? (
        // A sign-out that failed: the session goes on, and the rep is told why.
        <p role="alert" className="problem">
          <strong>Still signed in.</strong>{' '}
          {signOutProblem instanceof ApiError && !signOutProblem.offline
            ? signOutProblem.message
            : 'The server could not be reached: try signing out again.'}
        </p>
      ) : null}
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
