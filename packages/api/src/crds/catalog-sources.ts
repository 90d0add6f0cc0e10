import type { JSONSchemaProps } from '@olm/structural-schema';
import type { CustomResourceDefinition } from '../custom-resource-definition.js';
import { GROUP } from '../meta.js';
import {
  array,
  conditionList,
  dateTime,
  integer,
  object,
  opaqueObject,
  quantity,
  resourceRoot,
  string,
  stringList,
  stringMap,
  toleration,
} from './schema-builders.js';

const grpcPodConfig = (): JSONSchemaProps =>
  object(
    {
      affinity: opaqueObject('A core/v1 Affinity for the catalog pod.'),
      extractContent: object({ cacheDir: string(), catalogDir: string() }, ['catalogDir']),
      memoryTarget: quantity(),
      nodeSelector: stringMap(),
      priorityClassName: string(),
      securityContextConfig: string({ enum: ['legacy', 'restricted'], description: 'Unset: restricted if the namespace enforces restricted pod security, else legacy.' }),
      tolerations: array(toleration()),
    },
    undefined,
    { description: 'Overrides for the catalog pod (grpc catalogs with an image).' },
  );

const spec = (): JSONSchemaProps =>
  object(
    {
      address: string({ description: 'host:port of an existing registry (grpc, ignored when image is set).' }),
      configMap: string(),
      description: string(),
      displayName: string(),
      grpcPodConfig: grpcPodConfig(),
      icon: object({ base64data: string(), mediatype: string() }, ['base64data', 'mediatype']),
      image: string({ description: 'A catalog image OLM runs as a registry server.' }),
      priority: integer({ description: 'Higher priorities are preferred during dependency resolution; default 0.' }),
      publisher: string(),
      secrets: stringList(),
      sourceType: string({ description: 'grpc, configmap or internal.' }),
      updateStrategy: object({ registryPoll: object({ interval: string({ description: 'A Go duration such as 45m.' }) }) }),
    },
    ['sourceType'],
  );

const status = (): JSONSchemaProps =>
  object({
    conditions: conditionList(),
    configMapReference: object(
      { lastUpdateTime: dateTime(), name: string(), namespace: string(), resourceVersion: string(), uid: string() },
      ['name', 'namespace'],
    ),
    connectionState: object({ address: string(), lastConnect: dateTime(), lastObservedState: string() }, ['lastObservedState']),
    latestImageRegistryPoll: dateTime(),
    message: string(),
    reason: string(),
    registryService: object({ createdAt: dateTime(), port: string(), protocol: string(), serviceName: string(), serviceNamespace: string() }),
  });

export function catalogSourcesCrd(): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `catalogsources.${GROUP}` },
    spec: {
      group: GROUP,
      names: { kind: 'CatalogSource', listKind: 'CatalogSourceList', plural: 'catalogsources', singular: 'catalogsource', shortNames: ['catsrc'], categories: ['olm'] },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1alpha1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: resourceRoot('A repository of operator bundles OLM can install from.', spec(), status(), ['metadata', 'spec']) },
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: 'Display', type: 'string', jsonPath: '.spec.displayName', description: 'Display name of the catalog' },
            { name: 'Type', type: 'string', jsonPath: '.spec.sourceType', description: 'Type of the catalog' },
            { name: 'Publisher', type: 'string', jsonPath: '.spec.publisher', description: 'Publisher of the catalog' },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
        },
      ],
    },
  };
}
