import type { Step, StepResource } from '@olm/api';
import { OlmError, type CatalogRef, type KubeObject, type Property, type RbacGenerator } from '@olm/core';
import { dependencySubscriptionName } from '../install-plans/install-plan-rules.js';

/** An InstallPlan step (`status.plan[]`) and what it creates: @olm/api's types. */
export type { Step, StepResource } from '@olm/api';

/** The CSV annotation carrying the bundle's properties, read back by the resolver for installed operators. */
export const propertiesAnnotation = 'operatorframework.io/properties';

/** Properties that describe the bundle's contents rather than the operator; never projected onto the CSV. */
const contentProperties = new Set(['olm.bundle.object', 'olm.csv.metadata']);

/** The properties annotation's value for a bundle: `{"properties":[…]}` without the content properties. */
export function propertiesAnnotationValue(properties: readonly Property[]): string {
  return JSON.stringify({ properties: properties.filter((property) => !contentProperties.has(property.type)) });
}

export interface BundleStepsInput {
  readonly bundleName: string;
  readonly properties: readonly Property[];
  /** The bundle's manifests: its ClusterServiceVersion and the other objects it ships (CRDs, …). */
  readonly manifests: readonly KubeObject[];
  /** The namespace being resolved: where the CSV and its namespaced objects go. */
  readonly namespace: string;
  /** The CSV this one replaces, as the resolver decided ("" for a fresh install). */
  readonly replaces: string;
  readonly catalog: CatalogRef;
  readonly rbac: RbacGenerator;
}

/**
 * The steps that install one bundle, as upstream builds them: the CSV (in the namespace, with the
 * resolved `replaces` and the properties annotation), each other manifest (a Secret becomes
 * `BundleSecret`), then the ServiceAccounts and RBAC the CSV's permissions ask for.
 */
export function stepsFromBundle(input: BundleStepsInput): Step[] {
  const csvManifest = input.manifests.find((manifest) => manifest.kind === 'ClusterServiceVersion');
  if (!csvManifest) {
    throw new OlmError(
      'OLM_CATALOG_BUNDLE_WITHOUT_CSV',
      `bundle ${JSON.stringify(input.bundleName)} has no ClusterServiceVersion among its manifests; the catalog must carry it as an olm.bundle.object property`,
    );
  }
  const original = structuredClone(csvManifest) as KubeObject & { spec?: Record<string, unknown> };
  const spec: Record<string, unknown> = { ...(original.spec ?? {}) };
  if (input.replaces) spec.replaces = input.replaces;
  else delete spec.replaces;
  const csv: KubeObject = {
    ...original,
    metadata: {
      ...original.metadata,
      namespace: input.namespace,
      annotations: {
        ...(original.metadata.annotations as Record<string, string> | undefined),
        [propertiesAnnotation]: propertiesAnnotationValue(input.properties),
      },
    },
    spec,
  };

  const objects: KubeObject[] = [
    csv,
    ...input.manifests.filter((manifest) => manifest !== csvManifest),
    ...input.rbac.permissionsForCsv({ csv }),
  ];
  return objects.map((object) => ({
    resolving: input.bundleName,
    resource: stepResource(object, input.catalog),
    status: 'Unknown',
  }));
}

/** The Subscription OLM creates for a dependency nobody subscribed to (Automatic, starting at the chosen bundle). */
export function subscriptionStep(
  namespace: string,
  dependency: { readonly package: string; readonly channel: string; readonly catalog: CatalogRef; readonly startingCSV: string },
): Step {
  const subscription: KubeObject = {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'Subscription',
    metadata: {
      name: dependencySubscriptionName(dependency.package, dependency.channel, dependency.catalog.name, dependency.catalog.namespace),
      namespace,
    },
    spec: {
      source: dependency.catalog.name,
      sourceNamespace: dependency.catalog.namespace,
      name: dependency.package,
      channel: dependency.channel,
      startingCSV: dependency.startingCSV,
      installPlanApproval: 'Automatic',
    },
  };
  return { resolving: dependency.startingCSV, resource: stepResource(subscription, dependency.catalog), status: 'Unknown' };
}

function stepResource(object: KubeObject, catalog: CatalogRef): StepResource {
  const [group, version] = object.apiVersion.includes('/') ? object.apiVersion.split('/', 2) : ['', object.apiVersion];
  const metadata = object.metadata as { name?: string; generateName?: string };
  return {
    sourceName: catalog.name,
    sourceNamespace: catalog.namespace,
    group: group!,
    version: version!,
    // A Secret shipped in the bundle is told apart from pull secrets the plan may also carry.
    kind: object.kind === 'Secret' ? 'BundleSecret' : object.kind,
    name: metadata.name ?? metadata.generateName ?? '',
    manifest: JSON.stringify(object),
  };
}
