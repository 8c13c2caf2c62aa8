import type { Db } from '../../db/client.js';
import type { OrgScope } from '../../domain/scope.js';
import type { Clock } from '../../lib/clock.js';
import type { Services } from '../../services.js';
import type { Rng } from './demo-data.js';

/** What every step of the demo seed works with: the services, the organization and its owner. */
export interface DemoRun {
  services: Services;
  db: Db;
  rnd: Rng;
  tag: string;
  /** The registry snapshot the server checks carriers against: the demo's census goes into it. */
  registryFile: string;
  /** The product clock (the demo's loads are picked up around its today). */
  clock: Clock;
  progress: (step: string) => void;
  org: { id: string };
  user: { id: string };
  /** The owner's e-mail: the demo's carrier rep. */
  email: string;
  scope: OrgScope;
}
