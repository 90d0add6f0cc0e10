import { bundleObjectKinds } from '@olm/api';
import { OlmError, describeError, type KubeObject, type Property } from '@olm/core';
import { dns1123LabelErrors } from '@olm/registry';
import { describe, readManifests, refuseDependencies, type RegistryV1Manifests } from './bundle-manifests.js';
import { readCsvInstall, type CsvInstall } from './csv-install.js';
import { buildDeployment } from './deployments.js';
import { RenderErrorCodes, renderError } from './errors.js';
import { ownerLabels } from './owner-labels.js';
import { rbacObjects } from './rbac-objects.js';
import { defaultRenderLimits, RenderBudget, renderLimitExceeded, type RenderLimits } from './render-limits.js';
import { targetNamespaces } from './watch-namespace.js';

export interface RenderInput {
  /** The catalog bundle: its name (for messages) and properties (dependencies are refused). */
  readonly bundle: { readonly name: string; readonly properties?: readonly Property[] };
  /** The bundle's manifests: `Catalog.bundleObjects(bundle)`, or what the bundle puller unpacked. */
  readonly manifests: readonly unknown[];
  /** The ClusterExtension's `spec.namespace`: where the operator runs. */
  readonly installNamespace: string;
  /** The ClusterExtension's `spec.config.inline.watchNamespace`, when set. */
  readonly watchNamespace?: string;
  /** The ClusterExtension's name: every object gets it in its owner labels. */
  readonly extensionName: string;
  readonly limits?: Partial<RenderLimits>;
}

/** Apply order: CRDs before anything that uses them, RBAC before the pods that need it. */
export type RenderPhaseName = 'crds' | 'rbac' | 'workloads';

export interface RenderedPhase {
  readonly name: RenderPhaseName;
  readonly objects: readonly KubeObject[];
}

export interface RenderedBundle {
  readonly bundle: string;
  readonly csvName: string;
  /** The namespaces the operator watches: `[""]` for all. */
  readonly targetNamespaces: readonly string[];
  readonly phases: readonly RenderedPhase[];
}

/** Kinds of bundle objects applied with the generated RBAC rather than with the workloads. */
const rbacKinds = new Set(['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']);

/** Fields the API server sets; a bundle's copy would make the apply fail or lie. */
const serverSetMetadata = ['uid', 'resourceVersion', 'creationTimestamp', 'generation', 'managedFields', 'ownerReferences'];

/**
 * Renders a registry+v1 bundle into the plain objects OLM v1 applies for a ClusterExtension, in
 * phases. Deterministic: the same input gives the same objects in the same order. Every failure is
 * an `OlmError` with an `OLM_RENDER_*` code whose message names the bundle, the field and the remedy.
 */
export function renderRegistryV1Bundle(input: RenderInput): RenderedBundle {
  try {
    return render(input);
  } catch (error) {
    if (error instanceof OlmError) throw error;
    throw renderError(RenderErrorCodes.invalidBundle, `bundle ${String(input?.bundle?.name)} could not be rendered: ${describeError(error)}`);
  }
}

/** All objects of a rendering, phase after phase. */
export function renderedObjects(rendered: RenderedBundle): KubeObject[] {
  return rendered.phases.flatMap((phase) => phase.objects);
}

function render(input: RenderInput): RenderedBundle {
  checkInput(input);
  const bundle = input.bundle.name;
  const limits: RenderLimits = { ...defaultRenderLimits, ...input.limits };
  refuseDependencies(bundle, input.bundle.properties);
  const manifests = readManifests(bundle, input.manifests, limits);
  const csv = readCsvInstall(bundle, manifests.csv, manifests.crds);
  checkAnnotationCopies(bundle, csv, limits);
  const targets = targetNamespaces(bundle, csv.supportedInstallModes, input.installNamespace, input.watchNamespace);
  const rbac = rbacObjects({ csvName: csv.name, ...csv, installNamespace: input.installNamespace, targetNamespaces: targets });
  const shipped = placeShipped(manifests, input.installNamespace);
  // A ServiceAccount the bundle ships itself (with its imagePullSecrets, say) replaces the generated one.
  const shippedAccounts = new Set(shipped.rbac.filter((object) => object.kind === 'ServiceAccount').map((object) => object.metadata.name));
  const serviceAccounts = rbac.serviceAccounts.filter((account) => !shippedAccounts.has(account.metadata.name));
  const phases: RenderedPhase[] = [
    { name: 'crds', objects: shipped.crds },
    {
      name: 'rbac',
      objects: [...serviceAccounts, ...rbac.clusterRoles, ...rbac.clusterRoleBindings, ...rbac.roles, ...rbac.roleBindings, ...shipped.rbac],
    },
    // The bundle's ConfigMaps, Secrets, Services… before the Deployments whose pods may mount them.
    { name: 'workloads', objects: [...shipped.workloads, ...csv.deployments.map((entry) => buildDeployment(entry, csv.annotations, input.installNamespace, targets))] },
  ];
  return { bundle, csvName: csv.name, targetNamespaces: targets, phases: labelled(bundle, phases, input.extensionName, limits) };
}

/**
 * The CSV's annotations are copied into every Deployment's pod template, the one place where a small
 * bundle renders large: refused before any copy is made.
 */
function checkAnnotationCopies(bundle: string, csv: CsvInstall, limits: RenderLimits): void {
  const copies = Buffer.byteLength(JSON.stringify(csv.annotations), 'utf8') * csv.deployments.length;
  if (copies > limits.maxRenderedBytes) {
    throw renderLimitExceeded('maxRenderedBytes', limits, bundle, `the CSV's metadata.annotations copied into each of its ${csv.deployments.length} Deployments make ${copies}`);
  }
}

function checkInput(input: RenderInput): void {
  if (typeof input?.bundle?.name !== 'string' || input.bundle.name === '') {
    throw renderError(RenderErrorCodes.invalidInput, 'render input: bundle.name must name the bundle');
  }
  for (const [field, value] of [
    ['installNamespace', input.installNamespace],
    ['extensionName', input.extensionName],
  ] as const) {
    const errors = typeof value === 'string' ? dns1123LabelErrors(value) : ['must be a string'];
    if (errors.length > 0) {
      throw renderError(RenderErrorCodes.invalidInput, `bundle ${input.bundle.name}: ${field} ${JSON.stringify(value ?? null)} is invalid: ${errors.join('; ')}`, { field });
    }
  }
}

/** The bundle's own objects, copied: namespaced kinds into the install namespace, cluster-scoped ones without one. */
function placeShipped(manifests: RegistryV1Manifests, installNamespace: string) {
  const place = (object: KubeObject, namespaced: boolean): KubeObject => {
    const copy = structuredClone(object) as Record<string, unknown> & KubeObject;
    delete copy.status;
    const metadata: Record<string, unknown> = { ...copy.metadata };
    for (const field of serverSetMetadata) delete metadata[field];
    if (namespaced) metadata.namespace = installNamespace;
    else delete metadata.namespace;
    return { ...copy, metadata: metadata as KubeObject['metadata'] };
  };
  const others = manifests.others.map((object) => place(object, bundleObjectKinds.get(object.kind)!.namespaced));
  return {
    crds: manifests.crds.map((crd) => place(crd, false)),
    rbac: others.filter((object) => rbacKinds.has(object.kind)),
    workloads: others.filter((object) => !rbacKinds.has(object.kind)),
  };
}

/** Adds the owner labels, counts each object against the render limits, and refuses two objects with one identity. */
function labelled(bundle: string, phases: readonly RenderedPhase[], extensionName: string, limits: RenderLimits): RenderedPhase[] {
  const budget = new RenderBudget(limits, bundle);
  const seen = new Set<string>();
  return phases.map((phase) => ({
    name: phase.name,
    objects: phase.objects.map((object) => {
      const key = `${object.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name}`;
      if (seen.has(key)) {
        throw renderError(
          RenderErrorCodes.invalidBundle,
          `bundle ${bundle}: ${describe(object)} would be applied twice ` +
            '(the bundle ships it and OLM also generates it from the CSV, or the bundle ships it twice); remove the duplicate from the bundle',
          { bundle, object: key },
        );
      }
      seen.add(key);
      const metadata = object.metadata as KubeObject['metadata'] & { labels?: Record<string, string> };
      return budget.add({ ...object, metadata: { ...metadata, labels: { ...metadata.labels, ...ownerLabels(extensionName) } } }, describe(object));
    }),
  }));
}
