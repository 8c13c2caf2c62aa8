/** The demo's fixed data: cities and lanes, names, the status plan, and a seeded generator. */

/** A small seeded generator: the same demo every run, apart from ids and names made unique. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(list: readonly T[]): T => {
      const i = Math.floor(next() * list.length);
      if (!(i in list)) throw new Error(`pick: no item ${i} in a list of ${list.length}`);
      // `i in list` was checked just above (an item may itself be null); the index type cannot say so.
      return list[i] as T;
    },
  };
}

export const CITIES = [
  { city: 'Chicago', state: 'IL', lat: 41.88, lon: -87.63, zip: '60607' },
  { city: 'Dallas', state: 'TX', lat: 32.78, lon: -96.8, zip: '75207' },
  { city: 'Atlanta', state: 'GA', lat: 33.75, lon: -84.39, zip: '30336' },
  { city: 'Los Angeles', state: 'CA', lat: 34.05, lon: -118.24, zip: '90058' },
  { city: 'Phoenix', state: 'AZ', lat: 33.45, lon: -112.07, zip: '85043' },
  { city: 'Denver', state: 'CO', lat: 39.74, lon: -104.99, zip: '80216' },
  { city: 'Memphis', state: 'TN', lat: 35.15, lon: -90.05, zip: '38118' },
  { city: 'Columbus', state: 'OH', lat: 39.96, lon: -83.0, zip: '43217' },
  { city: 'Indianapolis', state: 'IN', lat: 39.77, lon: -86.16, zip: '46241' },
  { city: 'Kansas City', state: 'MO', lat: 39.1, lon: -94.58, zip: '64120' },
  { city: 'Houston', state: 'TX', lat: 29.76, lon: -95.37, zip: '77029' },
  { city: 'Laredo', state: 'TX', lat: 27.53, lon: -99.49, zip: '78045' },
  { city: 'Savannah', state: 'GA', lat: 32.08, lon: -81.09, zip: '31408' },
  { city: 'Charlotte', state: 'NC', lat: 35.23, lon: -80.84, zip: '28208' },
  { city: 'Nashville', state: 'TN', lat: 36.16, lon: -86.78, zip: '37210' },
  { city: 'Salt Lake City', state: 'UT', lat: 40.76, lon: -111.89, zip: '84104' },
  { city: 'Seattle', state: 'WA', lat: 47.61, lon: -122.33, zip: '98108' },
  { city: 'Harrisburg', state: 'PA', lat: 40.27, lon: -76.88, zip: '17111' },
  { city: 'Newark', state: 'NJ', lat: 40.74, lon: -74.17, zip: '07114' },
  { city: 'Jacksonville', state: 'FL', lat: 30.33, lon: -81.66, zip: '32254' },
  { city: 'Minneapolis', state: 'MN', lat: 44.98, lon: -93.27, zip: '55413' },
  { city: 'Detroit', state: 'MI', lat: 42.33, lon: -83.05, zip: '48209' },
  { city: 'Louisville', state: 'KY', lat: 38.25, lon: -85.76, zip: '40213' },
  { city: 'Fresno', state: 'CA', lat: 36.74, lon: -119.79, zip: '93725' },
] as const;
export type City = (typeof CITIES)[number];

/** Busy lanes most carriers run and most loads move on (origin index, destination index). */
export const LANES: [number, number][] = [
  [0, 1],
  [1, 0],
  [0, 2],
  [2, 0],
  [3, 4],
  [4, 3],
  [11, 1],
  [10, 2],
  [12, 13],
  [6, 14],
  [7, 8],
  [18, 17],
  [16, 3],
  [5, 15],
  [9, 0],
  [19, 2],
  [20, 0],
  [21, 7],
  [22, 6],
  [23, 3],
];
export const EQUIPMENT = [
  'VAN',
  'VAN',
  'VAN',
  'REEFER',
  'REEFER',
  'FLATBED',
  'STEPDECK',
  'POWER_ONLY',
] as const;
export const COMMODITIES = {
  VAN: ['Paper products', 'Canned goods', 'Auto parts', 'Consumer electronics', 'Beverages'],
  REEFER: ['Fresh produce', 'Frozen poultry', 'Dairy', 'Ice cream'],
  FLATBED: ['Steel coils', 'Lumber', 'Rebar', 'Precast concrete'],
  STEPDECK: ['Construction equipment', 'HVAC units'],
  POWER_ONLY: ['Loaded trailer (drop and hook)'],
};
export const CUSTOMERS = [
  'Acme Foods',
  'Great Lakes Paper',
  'Sunbelt Steel',
  'Prairie Produce',
  'Northwind Retail',
];
export const CARRIER_WORDS = [
  [
    'Blue',
    'Lone Star',
    'Great Plains',
    'Red Rock',
    'Iron',
    'Eagle',
    'Summit',
    'Delta',
    'Pioneer',
    'Keystone',
  ],
  [
    'Freight',
    'Transport',
    'Logistics',
    'Carriers',
    'Trucking',
    'Express',
    'Hauling',
    'Lines',
    'Cartage',
    'Motor Lines',
  ],
];
export const FIRST = [
  'Maria',
  'James',
  'Luis',
  'Ashley',
  'Darnell',
  'Priya',
  'Tom',
  'Keisha',
  'Ivan',
  'Rosa',
];
export const LAST = [
  'Garcia',
  'Johnson',
  'Nguyen',
  'Smith',
  'Okafor',
  'Patel',
  'Kowalski',
  'Brown',
  'Ivanova',
  'Lopez',
];

/** TMS statuses and how many loads carry each: every load_status of the spec appears. */
export const STATUS_PLAN: [string | null, number][] = [
  [null, 15], // Created
  ['Open', 50], // Unassigned
  ['Quoted', 35], // Quotes Received
  ['Dispatched', 30],
  ['In Transit', 25], // En Route
  ['Delivered', 25],
  ['Cancelled', 10],
  ['Exception', 10],
];

export const miles = (a: City, b: City) => {
  const rad = Math.PI / 180;
  const h =
    Math.sin(((b.lat - a.lat) * rad) / 2) ** 2 +
    Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(((b.lon - a.lon) * rad) / 2) ** 2;
  return Math.round(3959 * 2 * Math.asin(Math.sqrt(h)) * 1.18);
};

export async function inChunks<T>(items: T[], size: number, work: (item: T, index: number) => Promise<void>) {
  for (let i = 0; i < items.length; i += size) {
    await Promise.all(items.slice(i, i + size).map((item, j) => work(item, i + j)));
  }
}

export type Rng = ReturnType<typeof prng>;
