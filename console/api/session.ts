import { apiErrorOf, networkError } from './errors';

/**
 * The browser session: the access token lives in this module's memory only (never in web
 * storage); the refresh token is an HttpOnly cookie the page cannot read, sent by the browser to
 * POST /auth/refresh alone. A reload signs in again through that cookie. Refreshes are serialised
 * across tabs with a Web Lock: a refresh token works once, and two tabs refreshing with the same
 * cookie would end the session.
 */
export interface Tokens {
  access_token: string;
  expires_in: number;
}

type Listener = () => void;

const REFRESH_LOCK = 'envoy-console-refresh';

class SessionStore {
  private accessToken: string | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private refreshing: Promise<boolean> | null = null;
  private listeners = new Set<Listener>();
  private inflight = new AbortController();
  /** The organization the console acts in (X-Organization-ID); null: the user's first. */
  organizationId: string | null = null;

  get token() {
    return this.accessToken;
  }

  subscribe(listener: Listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit() {
    for (const l of this.listeners) l();
  }

  /** Keeps the tokens and schedules the next refresh a minute before the access token expires. */
  accept(tokens: Tokens) {
    this.accessToken = tokens.access_token;
    if (this.timer) clearTimeout(this.timer);
    const inMs = Math.max(10_000, (tokens.expires_in - 60) * 1000);
    this.timer = setTimeout(() => void this.refresh(), inMs);
    this.emit();
  }

  /** Ends when requests still in flight are aborted (see `abortRequests`). */
  get signal() {
    return this.inflight.signal;
  }

  /**
   * Aborts every request still in flight, the refresh too. Sign-out does this before it ends the
   * session on the server: a request that arrived after would be refused (401), then retried by a
   * refresh that is refused as well.
   */
  abortRequests() {
    this.inflight.abort();
    this.inflight = new AbortController();
  }

  /** Forgets the access token (sign-out, or a session that ended). */
  clear() {
    this.accessToken = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.emit();
  }

  /**
   * Whether a refresh cookie may exist: the server sets a readable `envoy_session=1` beside the
   * HttpOnly one, and clears both on sign-out.
   */
  hasSession() {
    return document.cookie.split(/;\s*/).includes('envoy_session=1');
  }

  /** A new access token from the refresh cookie; false when the session is over. One at a time. */
  refresh(): Promise<boolean> {
    this.refreshing ??= this.refreshOnce().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async refreshOnce(): Promise<boolean> {
    const run = async () => {
      let response: Response;
      try {
        response = await fetch('/api/v1/auth/refresh', {
          method: 'POST',
          credentials: 'same-origin',
          headers: { 'content-type': 'application/json' },
          body: '{}',
          signal: this.inflight.signal,
        });
      } catch {
        throw networkError();
      }
      if (response.ok) {
        this.accept((await response.json()) as Tokens);
        return true;
      }
      const body = await response.json().catch(() => null);
      if (response.status === 401) {
        this.clear();
        return false;
      }
      throw apiErrorOf(response, body);
    };
    return navigator.locks ? navigator.locks.request(REFRESH_LOCK, run) : run();
  }
}

export const session = new SessionStore();
