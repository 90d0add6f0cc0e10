import { bundleObjectKinds, ClusterServiceVersionKind } from '@olm/api';
import type { KubeObject, Property } from '@olm/core';
import { RenderErrorCodes, renderError } from './errors.js';
import { renderLimitExceeded, type RenderLimits } from './render-limits.js';

/** A registry+v1 bundle's manifests sorted as the renderer uses them. */
export interface RegistryV1Manifests {
  readonly csv: KubeObject;
  readonly crds: readonly KubeObject[];
  /** Everything else, in bundle order; each of a kind in `bundleObjectKinds`. */
  readonly others: readonly KubeObject[];
}

/** Catalog properties that make the bundle depend on other packages or APIs: OLM v1 resolves no dependencies. */
export const dependencyPropertyTypes: ReadonlySet<string> = new Set(['olm.package.required', 'olm.gvk.required', 'olm.constraint']);

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks the manifests against the limits (count first, then sizes one by one, so a huge list is
 * refused before it is measured) and splits them into the CSV, CRDs and other objects.
 */
export function readManifests(bundle: string, manifests: readonly unknown[], limits: RenderLimits): RegistryV1Manifests {
  if (!Array.isArray(manifests)) {
    throw renderError(RenderErrorCodes.invalidInput, `bundle ${bundle}: manifests must be a list of objects`, { bundle });
  }
  if (manifests.length > limits.maxObjects) {
    throw renderLimitExceeded('maxObjects', limits, bundle, `it has ${manifests.length}`);
  }
  let total = 0;
  const csvs: KubeObject[] = [];
  const crds: KubeObject[] = [];
  const others: KubeObject[] = [];
  manifests.forEach((manifest, index) => {
    const object = checkObject(bundle, manifest, index);
    const bytes = Buffer.byteLength(JSON.stringify(object), 'utf8');
    if (bytes > limits.maxObjectBytes) {
      throw renderLimitExceeded('maxObjectBytes', limits, bundle, `${describe(object)} has ${bytes}`);
    }
    total += bytes;
    if (total > limits.maxTotalBytes) {
      throw renderLimitExceeded('maxTotalBytes', limits, bundle, `the manifests up to ${describe(object)} have ${total}`);
    }
    if (object.kind === ClusterServiceVersionKind) csvs.push(object);
    else if (object.kind === 'CustomResourceDefinition') crds.push(object);
    else if (bundleObjectKinds.has(object.kind)) others.push(object);
    else {
      throw renderError(
        RenderErrorCodes.unsupportedBundle,
        `bundle ${bundle} contains ${describe(object)} of a kind OLM does not install from bundles; ` +
          `supported kinds besides the CSV and CRDs: ${[...bundleObjectKinds.keys()].join(', ')}; remove it from the bundle`,
        { bundle, kind: object.kind, name: object.metadata.name },
      );
    }
  });
  if (csvs.length !== 1) {
    throw renderError(
      RenderErrorCodes.invalidBundle,
      csvs.length === 0
        ? `bundle ${bundle} has no ClusterServiceVersion among its manifests; a registry+v1 bundle must carry exactly one`
        : `bundle ${bundle} has ${csvs.length} ClusterServiceVersions (${csvs.map((csv) => csv.metadata.name).join(', ')}); a registry+v1 bundle must carry exactly one`,
      { bundle },
    );
  }
  return { csv: csvs[0]!, crds, others };
}

/** Refuses a bundle whose catalog properties declare dependencies, naming each. */
export function refuseDependencies(bundle: string, properties: readonly Property[] | undefined): void {
  const dependencies = (properties ?? []).filter((property) => dependencyPropertyTypes.has(property.type));
  if (dependencies.length === 0) return;
  const listed = dependencies.map((property) => `${property.type} ${JSON.stringify(property.value)}`.slice(0, 200)).join('; ');
  throw renderError(
    RenderErrorCodes.unsupportedBundle,
    `bundle ${bundle} declares dependencies (${listed}); OLM v1 resolves no dependencies, so it installs no bundle that declares them: ` +
      'choose a bundle version without olm.package.required, olm.gvk.required or olm.constraint properties, or install this operator with OLM v0 (a Subscription)',
    { bundle, dependencies: dependencies.map((property) => property.type) },
  );
}

function checkObject(bundle: string, manifest: unknown, index: number): KubeObject {
  if (!isRecord(manifest) || typeof manifest.kind !== 'string' || typeof manifest.apiVersion !== 'string') {
    throw renderError(RenderErrorCodes.invalidBundle, `bundle ${bundle}: manifest ${index} is not a Kubernetes object (it needs apiVersion and kind)`, {
      bundle,
      index,
    });
  }
  if (!isRecord(manifest.metadata) || typeof manifest.metadata.name !== 'string' || manifest.metadata.name === '') {
    throw renderError(RenderErrorCodes.invalidBundle, `bundle ${bundle}: manifest ${index} (${manifest.kind}) has no metadata.name`, {
      bundle,
      index,
    });
  }
  return manifest as KubeObject;
}

export function describe(object: KubeObject): string {
  return `${object.kind} ${JSON.stringify(object.metadata.name)}`;
}
