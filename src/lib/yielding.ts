/**
 * Long loops over a request's items give the event loop back now and then, so one large request
 * does not hold up every other request for its whole run. `pause()` resolves at once until
 * `budgetMs` of work has gone by since the last pause, then after one turn of the event loop.
 * Every large request in flight takes one such slice per turn, so a turn lasts about the budget
 * times their number (docs/decisions/0015-large-requests-a-piece-at-a-time.md has the measurement).
 */
export function cooperative(budgetMs = 5): { pause(): Promise<void> | undefined } {
  let since = performance.now();
  return {
    pause() {
      if (performance.now() - since < budgetMs) return undefined;
      return new Promise<void>((resolve) =>
        setImmediate(() => {
          since = performance.now();
          resolve();
        }),
      );
    },
  };
}
