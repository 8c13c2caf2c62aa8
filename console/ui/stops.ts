import type { Schemas } from '../api/client';

type Stop = Schemas['Stop'];

/** The time zone most of a US state or Canadian province keeps (stops carry no zone of their own). */
const ZONES: Record<string, string> = {
  CT: 'America/New_York',
  DE: 'America/New_York',
  DC: 'America/New_York',
  FL: 'America/New_York',
  GA: 'America/New_York',
  IN: 'America/Indiana/Indianapolis',
  KY: 'America/New_York',
  ME: 'America/New_York',
  MD: 'America/New_York',
  MA: 'America/New_York',
  MI: 'America/Detroit',
  NH: 'America/New_York',
  NJ: 'America/New_York',
  NY: 'America/New_York',
  NC: 'America/New_York',
  OH: 'America/New_York',
  PA: 'America/New_York',
  RI: 'America/New_York',
  SC: 'America/New_York',
  VT: 'America/New_York',
  VA: 'America/New_York',
  WV: 'America/New_York',
  ON: 'America/Toronto',
  QC: 'America/Toronto',
  AL: 'America/Chicago',
  AR: 'America/Chicago',
  IL: 'America/Chicago',
  IA: 'America/Chicago',
  KS: 'America/Chicago',
  LA: 'America/Chicago',
  MN: 'America/Chicago',
  MS: 'America/Chicago',
  MO: 'America/Chicago',
  NE: 'America/Chicago',
  ND: 'America/Chicago',
  OK: 'America/Chicago',
  SD: 'America/Chicago',
  TN: 'America/Chicago',
  TX: 'America/Chicago',
  WI: 'America/Chicago',
  MB: 'America/Winnipeg',
  AZ: 'America/Phoenix',
  CO: 'America/Denver',
  ID: 'America/Boise',
  MT: 'America/Denver',
  NM: 'America/Denver',
  UT: 'America/Denver',
  WY: 'America/Denver',
  AB: 'America/Edmonton',
  CA: 'America/Los_Angeles',
  NV: 'America/Los_Angeles',
  OR: 'America/Los_Angeles',
  WA: 'America/Los_Angeles',
  BC: 'America/Vancouver',
  AK: 'America/Anchorage',
  HI: 'Pacific/Honolulu',
};

export const zoneOf = (stop: Stop) => ZONES[stop.location.state.toUpperCase()] ?? 'UTC';

/** A time at the stop, in the stop's own zone ("Mar 3, 8:00 AM CST"). */
export function localTime(iso: string | null | undefined, stop: Stop) {
  if (!iso) return '—';
  return new Date(iso).toLocaleString('en-US', {
    timeZone: zoneOf(stop),
    month: 'short',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZoneName: 'short',
  });
}

export const place = (stop: Stop | undefined) =>
  stop ? `${stop.location.city}, ${stop.location.state}` : '—';

export const firstPickup = (stops: Stop[]) =>
  stops.find((s) => s.type === 'Pickup' || s.is_pickup) ?? stops[0];
export const lastDropoff = (stops: Stop[]) =>
  [...stops].reverse().find((s) => s.type === 'Dropoff' || s.is_dropoff) ?? stops.at(-1);

/** When the stop is planned: its window's start, else its expected date. */
export const plannedAt = (stop: Stop | undefined) => stop?.planned?.start ?? stop?.expected_date ?? null;
