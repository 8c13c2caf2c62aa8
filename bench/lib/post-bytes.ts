import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';

/** Connections kept open between requests, as fetch keeps them. */
const agent = new Agent({ keepAlive: true });

/**
 * A body sent as bytes already encoded, through node:http: fetch encodes a string body (and
 * copies a byte one) on every request, several MiB at a time on the thread that also runs the
 * server in these benchmarks, which then measured the client's work as the server's.
 */
export function postBytes(
  url: string,
  headers: Record<string, string>,
  type: string,
  body: Buffer,
): Promise<{ status: number; ms: number; text: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        agent,
        method: 'POST',
        headers: { ...headers, 'content-type': type, 'content-length': String(body.length) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            ms: performance.now() - started,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
