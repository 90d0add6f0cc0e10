import type { JSONSchemaProps } from '@olm/structural-schema';
import type { CustomResourceDefinition } from '../custom-resource-definition.js';
import { GROUP } from '../meta.js';
import {
  array,
  boolean,
  dateTime,
  envVar,
  integer,
  labelSelector,
  object,
  objectReference,
  opaqueObject,
  resourceRequirements,
  resourceRoot,
  string,
  stringMap,
  toleration,
  volumeMount,
} from './schema-builders.js';

const config = (): JSONSchemaProps =>
  object(
    {
      affinity: opaqueObject('A core/v1 Affinity for the operator pods.'),
      annotations: stringMap(),
      env: array(envVar()),
      envFrom: array(opaqueObject('A core/v1 EnvFromSource.')),
      nodeSelector: stringMap(),
      resources: resourceRequirements(),
      selector: labelSelector(),
      tolerations: array(toleration()),
      volumeMounts: array(volumeMount()),
      volumes: array(opaqueObject('A core/v1 Volume.')),
    },
    undefined,
    { description: 'Overrides applied to the operator deployments.' },
  );

const spec = (): JSONSchemaProps =>
  object(
    {
      channel: string(),
      config: config(),
      installPlanApproval: string({ description: 'Automatic (the default) or Manual.' }),
      name: string({ description: 'The package to install.' }),
      source: string({ description: 'The CatalogSource to install from.' }),
      sourceNamespace: string(),
      startingCSV: string(),
    },
    ['name', 'source', 'sourceNamespace'],
  );

const status = (): JSONSchemaProps =>
  object(
    {
      catalogHealth: array(object({ catalogSourceRef: objectReference(), healthy: boolean(), lastUpdated: dateTime() }, ['catalogSourceRef', 'healthy', 'lastUpdated'])),
      conditions: array(
        object(
          { lastHeartbeatTime: dateTime(), lastTransitionTime: dateTime(), message: string(), reason: string(), status: string(), type: string() },
          ['status', 'type'],
        ),
      ),
      currentCSV: string(),
      installPlanGeneration: integer(),
      installPlanRef: objectReference(),
      installedCSV: string(),
      installplan: object({ apiVersion: string(), kind: string(), name: string(), uuid: string() }, ['apiVersion', 'kind', 'name', 'uuid']),
      lastUpdated: dateTime(),
      reason: string(),
      state: string(),
    },
    ['lastUpdated'],
  );

export function subscriptionsCrd(): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `subscriptions.${GROUP}` },
    spec: {
      group: GROUP,
      names: { kind: 'Subscription', listKind: 'SubscriptionList', plural: 'subscriptions', singular: 'subscription', shortNames: ['sub', 'subs'], categories: ['olm'] },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1alpha1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: resourceRoot('Keeps an operator installed and up to date from a catalog channel.', spec(), status(), ['metadata', 'spec']) },
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: 'Package', type: 'string', jsonPath: '.spec.name', description: 'Subscribed package' },
            { name: 'Source', type: 'string', jsonPath: '.spec.source', description: 'Catalog the package comes from' },
            { name: 'Channel', type: 'string', jsonPath: '.spec.channel', description: 'Channel of updates' },
          ],
        },
      ],
    },
  };
}
