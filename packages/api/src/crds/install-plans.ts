import type { JSONSchemaProps } from '@olm/structural-schema';
import type { CustomResourceDefinition } from '../custom-resource-definition.js';
import { GROUP } from '../meta.js';
import { array, boolean, dateTime, integer, object, objectReference, resourceRoot, string, stringList } from './schema-builders.js';

const spec = (): JSONSchemaProps =>
  object(
    {
      approval: string({ description: 'Automatic or Manual.' }),
      approved: boolean(),
      clusterServiceVersionNames: stringList(),
      generation: integer(),
      source: string(),
      sourceNamespace: string(),
    },
    ['approval', 'approved', 'clusterServiceVersionNames'],
  );

const step = (): JSONSchemaProps =>
  object(
    {
      optional: boolean(),
      resolving: string({ description: 'The CSV this step belongs to.' }),
      resource: object(
        {
          group: string(),
          kind: string(),
          manifest: string(),
          name: string(),
          sourceName: string(),
          sourceNamespace: string(),
          version: string(),
        },
        ['group', 'kind', 'name', 'sourceName', 'sourceNamespace', 'version'],
      ),
      status: string(),
    },
    ['resolving', 'resource', 'status'],
  );

const bundleLookup = (): JSONSchemaProps =>
  object(
    {
      catalogSourceRef: objectReference(),
      conditions: array(
        object(
          { lastTransitionTime: dateTime(), lastUpdateTime: dateTime(), message: string(), reason: string(), status: string(), type: string() },
          ['status', 'type'],
        ),
      ),
      identifier: string(),
      path: string({ description: 'Where the bundle is pulled from, typically an image reference.' }),
      properties: string(),
      replaces: string(),
    },
    ['catalogSourceRef', 'identifier', 'path', 'replaces'],
  );

const status = (): JSONSchemaProps =>
  object(
    {
      attenuatedServiceAccountRef: objectReference(),
      bundleLookups: array(bundleLookup()),
      catalogSources: stringList(),
      conditions: array(
        object({ lastTransitionTime: dateTime(), lastUpdateTime: dateTime(), message: string(), reason: string(), status: string(), type: string() }),
      ),
      message: string(),
      phase: string(),
      plan: array(step()),
      startTime: dateTime(),
    },
    ['catalogSources', 'phase'],
  );

export function installPlansCrd(): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `installplans.${GROUP}` },
    spec: {
      group: GROUP,
      names: { kind: 'InstallPlan', listKind: 'InstallPlanList', plural: 'installplans', singular: 'installplan', shortNames: ['ip'], categories: ['olm'] },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1alpha1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: resourceRoot('The resources OLM creates to install or upgrade a set of operators.', spec(), status(), ['metadata', 'spec']) },
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: 'CSV', type: 'string', jsonPath: '.spec.clusterServiceVersionNames[0]', description: 'First CSV of the plan' },
            { name: 'Approval', type: 'string', jsonPath: '.spec.approval', description: 'Approval mode' },
            { name: 'Approved', type: 'boolean', jsonPath: '.spec.approved' },
          ],
        },
      ],
    },
  };
}
