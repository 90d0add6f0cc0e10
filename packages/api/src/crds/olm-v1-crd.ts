import type { JSONSchemaProps } from '@olm/structural-schema';
import { GROUP_V1 } from '../cluster-catalog.js';
import type { CustomResourceDefinition, CustomResourceDefinitionVersion } from '../custom-resource-definition.js';
import { resourceRoot } from './schema-builders.js';

/** An OLM v1 kind (olm.operatorframework.io/v1): cluster-scoped, one served and stored version `v1`, a status subresource. */
export function olmV1ClusterCrd(
  kind: string,
  description: string,
  columns: NonNullable<CustomResourceDefinitionVersion['additionalPrinterColumns']>,
  spec: JSONSchemaProps,
  status: JSONSchemaProps,
): CustomResourceDefinition {
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${GROUP_V1}` },
    spec: {
      group: GROUP_V1,
      names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase() },
      scope: 'Cluster',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          additionalPrinterColumns: columns,
          schema: { openAPIV3Schema: resourceRoot(description, spec, status, ['metadata', 'spec']) },
          subresources: { status: {} },
        },
      ],
    },
  };
}
