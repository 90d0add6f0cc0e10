import type { JSONSchemaProps } from '@olm/structural-schema';
import type { CustomResourceDefinition } from '../custom-resource-definition.js';
import { GROUP } from '../meta.js';
import {
  anyValue,
  array,
  boolean,
  dateTime,
  int32,
  intOrString,
  labelSelector,
  object,
  opaqueObject,
  policyRule,
  resourceRoot,
  string,
  stringList,
  stringMap,
} from './schema-builders.js';

const releaseIdentifier = '(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)';
const releasePattern = `^${releaseIdentifier}(\\.${releaseIdentifier})*$`;

const descriptor = (): JSONSchemaProps =>
  object({ description: string(), displayName: string(), path: string(), value: anyValue(), 'x-descriptors': stringList() }, ['path']);

const apiResourceReference = (): JSONSchemaProps => object({ kind: string(), name: string(), version: string() }, ['kind', 'name', 'version']);

const descriptorLists = (): Record<string, JSONSchemaProps> => ({
  actionDescriptors: array(descriptor()),
  resources: array(apiResourceReference()),
  specDescriptors: array(descriptor()),
  statusDescriptors: array(descriptor()),
});

const crdDescription = (): JSONSchemaProps =>
  object({ description: string(), displayName: string(), kind: string(), name: string(), version: string(), ...descriptorLists() }, ['kind', 'name', 'version']);

const apiServiceDescription = (): JSONSchemaProps =>
  object(
    {
      containerPort: int32(),
      deploymentName: string(),
      description: string(),
      displayName: string(),
      group: string(),
      kind: string(),
      name: string(),
      version: string(),
      ...descriptorLists(),
    },
    ['group', 'kind', 'name', 'version'],
  );

const permissions = (): JSONSchemaProps =>
  array(object({ rules: array(policyRule()), serviceAccountName: string() }, ['rules', 'serviceAccountName']), {
    description: 'Service accounts and the RBAC rules they need.',
  });

const appLink = (): JSONSchemaProps => object({ name: string(), url: string() });

const spec = (): JSONSchemaProps =>
  object(
    {
      annotations: stringMap({ description: 'Annotations copied onto the operator deployments’ pod templates.' }),
      apiservicedefinitions: object({ owned: array(apiServiceDescription()), required: array(apiServiceDescription()) }),
      cleanup: object({ enabled: boolean() }, ['enabled']),
      customresourcedefinitions: object({ owned: array(crdDescription()), required: array(crdDescription()) }),
      description: string(),
      displayName: string({ description: 'The name of the operator in display format.' }),
      icon: array(object({ base64data: string(), mediatype: string() }, ['base64data', 'mediatype'])),
      install: object(
        {
          spec: object(
            {
              clusterPermissions: permissions(),
              deployments: array(
                object(
                  {
                    label: stringMap(),
                    name: string(),
                    spec: opaqueObject('An apps/v1 DeploymentSpec.'),
                  },
                  ['name', 'spec'],
                ),
              ),
              permissions: permissions(),
            },
            ['deployments'],
          ),
          strategy: string({ description: 'The install strategy; OLM implements "deployment".' }),
        },
        ['strategy'],
        { description: 'How OLM installs the operator.' },
      ),
      installModes: array(object({ supported: boolean(), type: string() }, ['supported', 'type'])),
      keywords: stringList(),
      labels: stringMap(),
      links: array(appLink()),
      maintainers: array(object({ email: string(), name: string() })),
      maturity: string(),
      minKubeVersion: string(),
      nativeAPIs: array(object({ group: string(), kind: string(), version: string() }, ['group', 'kind', 'version'])),
      provider: appLink(),
      relatedImages: array(object({ image: string(), name: string() }, ['image', 'name'])),
      release: string({
        description: 'The packaging version of this operator version: dot-separated semver pre-release identifiers, at most 20 characters.',
        maxLength: 20,
        // Upstream states these two rules in CEL (x-kubernetes-validations); one pattern says the same: identifiers of
        // alphanumerics and hyphens, and numeric identifiers without leading zeros.
        pattern: releasePattern,
      }),
      replaces: string({ description: 'The name of the CSV this one replaces.' }),
      selector: labelSelector(),
      skips: stringList(),
      version: string({ description: 'The semantic version of the operator.' }),
      webhookdefinitions: array(
        object(
          {
            admissionReviewVersions: stringList(),
            containerPort: int32({ default: 443, maximum: 65535, minimum: 1 }),
            conversionCRDs: stringList(),
            deploymentName: string(),
            failurePolicy: string(),
            generateName: string(),
            matchPolicy: string(),
            objectSelector: labelSelector(),
            reinvocationPolicy: string(),
            rules: array(opaqueObject('An admissionregistration/v1 RuleWithOperations.')),
            sideEffects: string(),
            targetPort: intOrString(),
            timeoutSeconds: int32(),
            type: string({ enum: ['ValidatingAdmissionWebhook', 'MutatingAdmissionWebhook', 'ConversionWebhook'] }),
            webhookPath: string(),
          },
          ['admissionReviewVersions', 'generateName', 'sideEffects', 'type'],
        ),
      ),
    },
    ['displayName', 'install'],
  );

const condition = (): JSONSchemaProps =>
  object({ lastTransitionTime: dateTime(), lastUpdateTime: dateTime(), message: string(), phase: string(), reason: string() });

const status = (): JSONSchemaProps =>
  object({
    certsLastUpdated: dateTime(),
    certsRotateAt: dateTime(),
    cleanup: object({
      pendingDeletion: array(
        object(
          {
            group: string(),
            instances: array(object({ name: string(), namespace: string() }, ['name'])),
            kind: string(),
          },
          ['group', 'instances', 'kind'],
        ),
      ),
    }),
    conditions: array(condition(), { description: 'History of phase transitions (the newest 20).' }),
    lastTransitionTime: dateTime(),
    lastUpdateTime: dateTime(),
    message: string(),
    phase: string(),
    reason: string(),
    requirementStatus: array(
      object(
        {
          dependents: array(
            object({ group: string(), kind: string(), message: string(), status: string(), uuid: string(), version: string() }, ['group', 'kind', 'status', 'version']),
          ),
          group: string(),
          kind: string(),
          message: string(),
          name: string(),
          status: string(),
          uuid: string(),
          version: string(),
        },
        ['group', 'kind', 'message', 'name', 'status', 'version'],
      ),
    ),
  });

export function clusterServiceVersionsCrd(): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `clusterserviceversions.${GROUP}` },
    spec: {
      group: GROUP,
      names: {
        kind: 'ClusterServiceVersion',
        listKind: 'ClusterServiceVersionList',
        plural: 'clusterserviceversions',
        singular: 'clusterserviceversion',
        shortNames: ['csv', 'csvs'],
        categories: ['olm'],
      },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1alpha1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: resourceRoot('Describes how OLM installs and runs one version of an operator.', spec(), status(), ['metadata', 'spec']),
          },
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: 'Display', type: 'string', jsonPath: '.spec.displayName', description: 'Display name of the operator' },
            { name: 'Version', type: 'string', jsonPath: '.spec.version', description: 'Version of the operator' },
            { name: 'Release', type: 'string', jsonPath: '.spec.release', description: 'Release of this version of the operator' },
            { name: 'Replaces', type: 'string', jsonPath: '.spec.replaces', description: 'The CSV this one replaces' },
            { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
          ],
        },
      ],
    },
  };
}
