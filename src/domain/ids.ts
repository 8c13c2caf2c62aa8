import { v7 as uuidv7 } from 'uuid';

/** Identifier prefixes, one per kind of resource (docs/decisions/0010-prefixed-time-ordered-ids.md). */
export const idPrefixes = {
  apiKey: 'key',
  organization: 'org',
  carrier: 'car',
  offer: 'ofr',
  load: 'load',
  stop: 'stop',
  call: 'call',
  user: 'usr',
  contact: 'con',
  outreach: 'otr',
  webhookEndpoint: 'ep',
  elpTest: 'elp',
  escalation: 'esc',
  verification: 'ver',
  event: 'evt',
  deliveryAttempt: 'att',
  lane: 'lane',
  lanePreference: 'lp',
  loadView: 'view',
  audit: 'aud',
  webhookSecret: 'whsec',
  delivery: 'dlv',
  membership: 'mem',
  notification: 'ntf',
  transcript: 'msg',
  elpAnswer: 'elpa',
  conversation: 'conv',
  agentMessage: 'amsg',
  voiceTemplate: 'vt',
  voiceNumber: 'vnum',
  agentActivity: 'aact',
  eventStream: 'evs',
  eventStreamTicket: 'stk',
  session: 'ses',
  refreshToken: 'rtk',
  invitation: 'inv',
} as const;

export type IdKind = keyof typeof idPrefixes;

/** `<prefix>_<UUIDv7>`: time-ordered, so b-tree indexes on ids stay compact. */
export function newId(kind: IdKind): string {
  return `${idPrefixes[kind]}_${uuidv7()}`;
}

/**
 * What an id of this kind looks like: its prefix, an underscore, then letters, digits, `_` and `-`.
 * Every id Envoy issues is `<prefix>_<UUIDv7>`; the check is on the prefix, so another kind's id
 * (`car_...` where a `load_` id belongs) is told apart from one that matches nothing.
 */
export const idPattern = (kind: IdKind) => new RegExp(`^${idPrefixes[kind]}_[0-9A-Za-z][0-9A-Za-z_-]*$`);
