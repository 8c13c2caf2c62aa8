/**
 * The port a listening server is bound to. `address()` answers null before `listen` and a string
 * for a pipe or socket file; the tests and benches listen on TCP ports, so either is a bug here.
 */
export function portOf(server: { address(): { port: number } | string | null }): number {
  const address = server.address();
  if (address === null || typeof address === 'string') {
    throw new Error(`the server is not listening on a TCP port (address: ${address})`);
  }
  return address.port;
}
