import type { Db } from '../../db/client.js';
import type { OrgScope } from '../../domain/scope.js';
import type { Services } from '../../services.js';
import type { Rng } from './demo-data.js';

/** What every step of the demo seed works with: the services, the organization and its owner. */
export interface DemoRun {
  services: Services;
  db: Db;
  rnd: Rng;
  tag: string;
  registryFile: string;
  progress: (step: string) => void;
  org: { id: string };
  user: { id: string };
  /** The owner's e-mail: the demo's carrier rep. */
  email: string;
  scope: OrgScope;
}
