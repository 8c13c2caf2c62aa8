/** Call states of the spec, in the only order a call may move through them. */
export const CALL_STATUSES = [
  'SCHEDULED',
  'PENDING',
  'AGENT_ASSIGNED',
  'IN_PROGRESS',
  'COMPLETED',
  'FAILED',
  'CANCELLED',
  'VOICEMAIL',
  'NO_RESPONSE',
  'TRANSFERRED',
] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];

export const TERMINAL_STATUSES: ReadonlySet<CallStatus> = new Set([
  'COMPLETED',
  'FAILED',
  'CANCELLED',
  'VOICEMAIL',
  'NO_RESPONSE',
  'TRANSFERRED',
]);

/** The rank of a status on the one forward path; every terminal state shares the last rank. */
export function statusRank(status: CallStatus): number {
  return TERMINAL_STATUSES.has(status)
    ? 4
    : ['SCHEDULED', 'PENDING', 'AGENT_ASSIGNED', 'IN_PROGRESS'].indexOf(status);
}

export const CALL_TYPES = ['LOAD_BOOKING', 'ELP'] as const;
export type CallType = (typeof CALL_TYPES)[number];
