import type { JSONSchemaProps } from '@olm/structural-schema';
import type { CustomResourceDefinition, CustomResourceDefinitionVersion } from '../custom-resource-definition.js';
import { GROUP } from '../meta.js';
import { UpgradeStrategies } from '../operator-group.js';
import { array, boolean, condition, dateTime, labelSelector, object, objectReference, resourceRoot, string, stringList } from './schema-builders.js';

// v1alpha2 is the older shape that upstream still serves: no upgradeStrategy, no conditions, plain lists.
// With no conversion webhook, writing through v1alpha2 prunes the v1-only fields, as upstream does.

const spec = (isV1: boolean): JSONSchemaProps =>
  object(
    {
      selector: labelSelector('Selects the target namespaces (ignored when targetNamespaces is set).'),
      serviceAccountName: string({ description: 'Service account OLM uses to install operators of this group.' }),
      staticProvidedAPIs: boolean({ description: 'When true OLM leaves the olm.providedAPIs annotation alone.' }),
      targetNamespaces: stringList(isV1 ? { 'x-kubernetes-list-type': 'set' } : {}),
      ...(isV1
        ? {
            upgradeStrategy: string({
              enum: Object.values(UpgradeStrategies),
              default: UpgradeStrategies.Default,
              description: 'Default, or TechPreviewUnsafeFailForward to let failed upgrades be replaced.',
            }),
          }
        : {}),
    },
    undefined,
    isV1 ? { default: { upgradeStrategy: UpgradeStrategies.Default } } : {},
  );

const status = (isV1: boolean): JSONSchemaProps =>
  object(
    {
      ...(isV1 ? { conditions: array(condition()) } : {}),
      lastUpdated: dateTime(),
      namespaces: stringList(isV1 ? { 'x-kubernetes-list-type': 'set' } : {}),
      serviceAccountRef: objectReference(),
    },
    ['lastUpdated'],
  );

const version = (name: 'v1' | 'v1alpha2'): CustomResourceDefinitionVersion => ({
  name,
  served: true,
  storage: name === 'v1',
  schema: {
    openAPIV3Schema: resourceRoot(
      'The unit of multitenancy for OLM: which namespaces the operators in its namespace watch.',
      spec(name === 'v1'),
      status(name === 'v1'),
    ),
  },
  subresources: { status: {} },
});

export function operatorGroupsCrd(): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `operatorgroups.${GROUP}` },
    spec: {
      group: GROUP,
      names: { kind: 'OperatorGroup', listKind: 'OperatorGroupList', plural: 'operatorgroups', singular: 'operatorgroup', shortNames: ['og'], categories: ['olm'] },
      scope: 'Namespaced',
      versions: [version('v1'), version('v1alpha2')],
    },
  };
}
