import type { JSONSchemaProps } from '@olm/structural-schema';
import type { CustomResourceDefinition } from '../custom-resource-definition.js';
import { GROUP } from '../meta.js';
import { array, dateTime, labelSelector, object, resourceRoot, string } from './schema-builders.js';

const componentCondition = (): JSONSchemaProps =>
  object(
    { lastTransitionTime: dateTime(), lastUpdateTime: dateTime(), message: string(), reason: string(), status: string(), type: string() },
    ['status', 'type'],
  );

const status = (): JSONSchemaProps =>
  object({
    components: object(
      {
        labelSelector: labelSelector('Selects the resources that make up the operator.'),
        refs: array(
          object(
            {
              apiVersion: string(),
              conditions: array(componentCondition()),
              fieldPath: string(),
              kind: string(),
              name: string(),
              namespace: string(),
              resourceVersion: string(),
              uid: string(),
            },
            undefined,
            { 'x-kubernetes-map-type': 'atomic' },
          ),
        ),
      },
      ['labelSelector'],
    ),
  });

export function operatorsCrd(): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `operators.${GROUP}` },
    spec: {
      group: GROUP,
      names: { kind: 'Operator', listKind: 'OperatorList', plural: 'operators', singular: 'operator', categories: ['olm'] },
      scope: 'Cluster',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: resourceRoot('An operator installed on the cluster and the resources it consists of.', object({}), status(), []) },
          subresources: { status: {} },
        },
      ],
    },
  };
}
