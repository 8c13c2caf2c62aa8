import { createContext, type ReactNode, useCallback, useContext, useState } from 'react';

const Announce = createContext<(text: string) => void>(() => {});

/** Says what changed: new events and the outcome of actions, in a `role="status"` region. */
export function Announcer({ children }: { children: ReactNode }) {
  const [message, setMessage] = useState('');
  const announce = useCallback((text: string) => setMessage(text), []);
  return (
    <Announce.Provider value={announce}>
      {children}
      <div role="status" aria-live="polite" className="status-region">
        {message}
      </div>
    </Announce.Provider>
  );
}

export const useAnnounce = () => useContext(Announce);
