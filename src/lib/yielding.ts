/**
 * Long loops over a request's items give the event loop back now and then, so one large request
 * does not hold up every other request for its whole run. `pause()` resolves at once until
 * `budgetMs` of work has gone by since the last pause, then after one turn of the event loop.
 */
export function cooperative(budgetMs = 10): { pause(): Promise<void> | undefined } {
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
