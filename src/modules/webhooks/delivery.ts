import { createHmac, randomBytes } from 'node:crypto';
import { lookup as dnsLookup } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/** A new signing secret: `whsec_` + base64 of 24 random bytes (Standard Webhooks format). */
export const newSigningSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` keyed with the secret's decoded bytes. */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 127],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['::ffff:0:0', 96],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** Whether an IP address is private, loopback, link-local or otherwise not on the internet. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return blocked.check(mapped[1]!, 'ipv4');
    return blocked.check(address, 'ipv6');
  }
  return true;
}

/** The host of a URL without IPv6 brackets. */
export const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

export class DeliveryRefused extends Error {}

/** A DNS lookup that refuses hosts resolving to any private address (checked when connecting). */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 4);
    const list = addresses as { address: string; family: number }[];
    const bad = list.find((a) => isPrivateAddress(a.address));
    if (bad || list.length === 0) {
      return callback(
        new DeliveryRefused(`refused: ${hostname} resolves to a private address (${bad?.address ?? 'none'})`),
        '',
        4,
      );
    }
    if ((options as { all?: boolean }).all)
      return (callback as (e: null, a: typeof list) => void)(null, list);
    return callback(null, list[0]!.address, list[0]!.family);
  });
};

export interface PostResult {
  statusCode: number | null;
  durationMs: number;
  body: string | null;
  error: string | null;
}

const MAX_BODY = 1024;

/**
 * POSTs `body` and resolves with the status and the first 1 KB of the answer. Never follows
 * redirects. `publicOnly` refuses private targets, also after DNS resolution at connect time.
 */
export function post(
  target: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  publicOnly: boolean,
): Promise<PostResult> {
  const started = performance.now();
  const done = (r: Omit<PostResult, 'durationMs'>): PostResult => ({
    ...r,
    durationMs: Math.round(performance.now() - started),
  });
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return resolve(done({ statusCode: null, body: null, error: 'invalid URL' }));
    }
    if (publicOnly) {
      const host = hostOf(url);
      if (url.protocol !== 'https:') {
        return resolve(done({ statusCode: null, body: null, error: 'refused: only https in production' }));
      }
      if (isIP(host) && isPrivateAddress(host)) {
        return resolve(done({ statusCode: null, body: null, error: `refused: private address ${host}` }));
      }
    }
    const client = url.protocol === 'https:' ? https : url.protocol === 'http:' ? http : null;
    if (!client) return resolve(done({ statusCode: null, body: null, error: 'refused: not http(s)' }));
    let settled = false;
    const finish = (r: Omit<PostResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(done(r));
    };
    const req = client.request(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      ...(publicOnly ? { lookup: publicOnlyLookup } : {}),
    });
    const timer = setTimeout(() => {
      req.destroy();
      finish({ statusCode: null, body: null, error: `timeout after ${timeoutMs} ms` });
    }, timeoutMs);
    req.on('error', (err) => finish({ statusCode: null, body: null, error: err.message.slice(0, 500) }));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const complete = () => {
        finish({
          statusCode: res.statusCode ?? null,
          body: Buffer.concat(chunks).subarray(0, MAX_BODY).toString('utf8'),
          error: null,
        });
      };
      res.on('data', (chunk: Buffer) => {
        if (size < MAX_BODY) chunks.push(chunk);
        size += chunk.length;
        if (size >= MAX_BODY) {
          complete();
          res.destroy();
        }
      });
      res.on('end', complete);
      res.on('error', complete);
      res.on('close', complete);
    });
    req.end(body);
  });
}
