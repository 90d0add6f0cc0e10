/** The `RbacGenerator` this package provides: upstream OLM's RBAC, object for object. */
import type { RbacGenerator } from '@olm/core';
import { generateCsvPermissions } from './csv-permissions.js';
import { generateOperatorGroupClusterRoles } from './operator-group-cluster-roles.js';
import { generateOperatorGroupPermissions } from './operator-group-permissions.js';
import { upstreamOwnership } from './ownership.js';
import { policyRulesHash, roleBindingHash } from './permission-hash.js';
import { generateProvidedApiClusterRoles } from './provided-api-cluster-roles.js';

/** Creates the upstream-compatible generator. It holds no state: every call is a pure function of its input. */
export function createRbacGenerator(): RbacGenerator {
  return Object.freeze({
    name: 'upstream',
    ownership: upstreamOwnership,
    permissionsForCsv: ({ csv }) => generateCsvPermissions(csv),
    permissionsForOperatorGroup: (input) => generateOperatorGroupPermissions(input),
    operatorGroupClusterRoles: (input) => generateOperatorGroupClusterRoles(input),
    providedApiClusterRoles: (input) => generateProvidedApiClusterRoles(input),
    policyRulesHash: (rules) => policyRulesHash(rules),
    roleBindingHash: (roleRef, subjects) => roleBindingHash(roleRef, subjects),
  } satisfies RbacGenerator);
}
