import type { CustomResourceDefinition } from '../custom-resource-definition.js';
import { GROUP } from '../meta.js';
import { array, boolean, condition, object, resourceRoot, string } from './schema-builders.js';

export function olmConfigsCrd(): CustomResourceDefinition {
  const spec = object({
    features: object({
      disableCopiedCSVs: boolean({ description: 'Stop copying CSVs of AllNamespaces operators into every namespace.' }),
      // Only hours, minutes and seconds, as upstream's pattern allows (a Go duration such as `1h30m`).
      packageServerSyncInterval: string({ pattern: '^([0-9]+(\\.[0-9]+)?(s|m|h))+$' }),
      // This project's own feature (upstream has no such field): see Features.resolutionFailureScope.
      resolutionFailureScope: string({
        description:
          'What an unsatisfiable resolution fails: Subscription (the default) marks only the Subscriptions in the conflict ResolutionFailed and installs the rest; Namespace fails every Subscription of the namespace, as upstream OLM does.',
        enum: ['Subscription', 'Namespace'],
      }),
    }),
  });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `olmconfigs.${GROUP}` },
    spec: {
      group: GROUP,
      names: { kind: 'OLMConfig', listKind: 'OLMConfigList', plural: 'olmconfigs', singular: 'olmconfig', categories: ['olm'] },
      scope: 'Cluster',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: resourceRoot('Cluster-wide configuration of OLM (the object named "cluster").', spec, object({ conditions: array(condition()) }), ['metadata']) },
          subresources: { status: {} },
        },
      ],
    },
  };
}
