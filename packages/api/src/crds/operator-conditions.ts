import type { JSONSchemaProps } from '@olm/structural-schema';
import type { CustomResourceDefinition } from '../custom-resource-definition.js';
import { GROUP } from '../meta.js';
import { array, condition, object, resourceRoot, stringList } from './schema-builders.js';

const spec = (withConditions: boolean): JSONSchemaProps =>
  object({
    ...(withConditions ? { conditions: array(condition(), { description: 'Conditions the operator reports.' }) } : {}),
    deployments: stringList(),
    overrides: array(condition(['message', 'reason', 'status', 'type']), { description: 'Conditions set by an admin; they win over the operator’s.' }),
    serviceAccounts: stringList(),
  });

const status = (): JSONSchemaProps => object({ conditions: array(condition()) });

const description = 'Lets an operator tell OLM about its state (e.g. Upgradeable) and an admin override it.';

export function operatorConditionsCrd(): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `operatorconditions.${GROUP}` },
    spec: {
      group: GROUP,
      names: {
        kind: 'OperatorCondition',
        listKind: 'OperatorConditionList',
        plural: 'operatorconditions',
        singular: 'operatorcondition',
        shortNames: ['condition'],
        categories: ['olm'],
      },
      scope: 'Namespaced',
      versions: [
        { name: 'v1', served: true, storage: false, schema: { openAPIV3Schema: resourceRoot(description, spec(false), status()) }, subresources: { status: {} } },
        { name: 'v2', served: true, storage: true, schema: { openAPIV3Schema: resourceRoot(description, spec(true), status()) }, subresources: { status: {} } },
      ],
    },
  };
}
