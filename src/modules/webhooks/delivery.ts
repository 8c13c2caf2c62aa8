import { randomBytes } from 'node:crypto';
import { lookup as dnsLookup } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Webhook } from 'standardwebhooks';
import { SecretBox } from '../../db/secret-box.js';

/** Seconds before retry n (docs/decisions/0022-webhooks-outbox.md): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const RETRY_SCHEDULE_SECONDS = [5, 300, 1800, 7200, 18000, 36000, 36000];
/** HTTP attempts one delivery gets at most: the first and one per retry. */
export const MAX_ATTEMPTS_PER_DELIVERY = RETRY_SCHEDULE_SECONDS.length + 1;

/** A new signing secret: `whsec_` + base64 of 24 random bytes (Standard Webhooks format). */
export const newSigningSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

/**
 * The Standard Webhooks signature of one delivery, `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`
 * keyed with the secret's decoded bytes, as the `standardwebhooks` library computes it (the same
 * library receivers verify with).
 */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  return new Webhook(secret).sign(id, new Date(timestamp * 1000), body);
}

// Global unicast IPv6 (RFC 4291): everything outside it is reserved, deprecated or a translation
// form, such as IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::/96).
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * Why an IP address may not be a webhook target, as the name of its special-purpose range
 * (ipaddr.js: `loopback`, `private`, `linkLocal`, `6to4`, `teredo`, `rfc6052`, `multicast`,
 * `reserved`, ...), or null when it is public unicast. An IPv4-mapped IPv6 address is judged as
 * the IPv4 address it carries; tunnel and translation forms are refused whatever they embed.
 */
export function nonPublicRange(address: string): string | null {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.process(address);
  } catch {
    return 'invalid';
  }
  const range = ip.range();
  if (range !== 'unicast') return range;
  if (ip.kind() === 'ipv6') {
    if (ip.match(IPV4_COMPATIBLE)) return 'ipv4Compatible';
    if (!ip.match(GLOBAL_UNICAST_V6)) return 'reserved';
  }
  return null;
}

/** The host of a URL without IPv6 brackets. */
export const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

export class DeliveryRefused extends Error {}

/** A DNS lookup that refuses hosts resolving to any address that is not public unicast (checked when connecting). */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 4);
    const list = addresses;
    const bad = list.find((a) => nonPublicRange(a.address) !== null);
    const [first] = list;
    if (bad || !first) {
      const what = bad ? `${bad.address}, ${nonPublicRange(bad.address)}` : 'none';
      return callback(
        new DeliveryRefused(`refused: ${hostname} resolves to a private address (${what})`),
        '',
        4,
      );
    }
    if (options.all) return callback(null, list);
    return callback(null, first.address, first.family);
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
      const range = isIP(host) ? nonPublicRange(host) : null;
      if (range) {
        return resolve(
          done({ statusCode: null, body: null, error: `refused: private address ${host} (${range})` }),
        );
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

/** The box webhook signing secrets are sealed in, keyed from configuration. */
export const webhookSecretBox = (encryptionKey: string) =>
  new SecretBox(encryptionKey, 'webhook signing secrets');

/** A stored signing secret in plain text; rows written before secrets were sealed are plain already. */
export function openSigningSecret(box: SecretBox, stored: string, endpointId: string): string | null {
  return SecretBox.isSealed(stored) ? box.open(stored, endpointId) : stored;
}
