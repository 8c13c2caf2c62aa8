import { useMe } from './me';
import { OPERATION_ROLES } from './operation-roles';

/** An operation of the API as `METHOD /path`, exactly as the OpenAPI document names it. */
export type Operation = keyof typeof OPERATION_ROLES;

/**
 * Whether the signed-in role may call an operation, read from the OpenAPI document's
 * `x-envoy-roles` (generated into operation-roles.ts): the console shows an action only to a role
 * the API accepts for it, and the server still refuses the rest.
 */
export function useCan(): (operation: Operation) => boolean {
  const me = useMe(true);
  const role = me.data?.active_organization?.role;
  return (operation) =>
    role !== undefined && (OPERATION_ROLES[operation] as readonly string[]).includes(role);
}
