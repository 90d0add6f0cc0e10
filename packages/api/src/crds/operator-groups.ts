import type { JSONSchemaProps } from '@olm/structural-schema';
import type { CustomResourceDefinition, CustomResourceDefinitionVersion } from '../custom-resource-definition.js';
import { GROUP } from '../meta.js';
import { boolean, conditionList, dateTime, labelSelector, object, objectReference, resourceRoot, string, stringList } from './schema-builders.js';

const spec = (): JSONSchemaProps =>
  object(
    {
      selector: labelSelector('Selects the target namespaces (ignored when targetNamespaces is set).'),
      serviceAccountName: string({ description: 'Service account OLM uses to install operators of this group.' }),
      staticProvidedAPIs: boolean({ description: 'When true OLM leaves the olm.providedAPIs annotation alone.' }),
      targetNamespaces: stringList({ 'x-kubernetes-list-type': 'set' }),
      upgradeStrategy: object(
        { name: string({ enum: ['Default', 'TechPreviewUnsafeFailForward'], default: 'Default' }) },
        undefined,
        { default: { name: 'Default' }, description: 'Default, or TechPreviewUnsafeFailForward to let failed upgrades be replaced.' },
      ),
    },
    undefined,
    { default: { upgradeStrategy: { name: 'Default' } } },
  );

const status = (): JSONSchemaProps =>
  object(
    {
      conditions: conditionList(),
      lastUpdated: dateTime(),
      namespaces: stringList({ 'x-kubernetes-list-type': 'set' }),
      serviceAccountRef: objectReference(),
    },
    ['lastUpdated'],
  );

const version = (name: string, storage: boolean): CustomResourceDefinitionVersion => ({
  name,
  served: true,
  storage,
  schema: { openAPIV3Schema: resourceRoot('The unit of multitenancy for OLM: which namespaces the operators in its namespace watch.', spec(), status()) },
  subresources: { status: {} },
  additionalPrinterColumns: [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }],
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
      versions: [version('v1', true), version('v1alpha2', false)],
    },
  };
}
