import type { Json } from './json.js';

/** What an upgrade changes, from the installed CSV and live CRDs to the plan's CSV and CRDs. */
export interface UpgradeChanges {
  readonly permissions: { readonly added: readonly string[]; readonly removed: readonly string[] };
  readonly images: { readonly added: readonly string[]; readonly removed: readonly string[] };
  readonly crds: readonly CrdChange[];
  /** Steps whose manifest the plan does not carry inline (image-only bundles keep them in a ConfigMap). */
  readonly unknown: readonly string[];
}

export interface CrdChange {
  readonly name: string;
  /** `new CRD`, or the versions and schema fields added and removed. */
  readonly changes: readonly string[];
}

interface Rule {
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
  readonly verbs?: readonly string[];
}

/** One line per (scope, account, group/resource, verb), so that a widened rule shows as the verbs it adds. */
function permissionLines(csv: Json | undefined): Set<string> {
  const lines = new Set<string>();
  const strategy = csv?.spec?.install?.spec ?? {};
  for (const [scope, entries] of [['namespace', strategy.permissions], ['cluster', strategy.clusterPermissions]] as const) {
    for (const entry of (entries ?? []) as Array<{ serviceAccountName?: string; rules?: Rule[] }>) {
      for (const rule of entry.rules ?? []) {
        const targets = rule.nonResourceURLs?.length
          ? rule.nonResourceURLs
          : (rule.apiGroups ?? ['']).flatMap((group) => (rule.resources ?? []).map((resource) => `${group || 'core'}/${resource}${rule.resourceNames?.length ? `[${rule.resourceNames.join(',')}]` : ''}`));
        for (const target of targets) for (const verb of rule.verbs ?? []) lines.add(`${scope} ${entry.serviceAccountName ?? 'default'}: ${verb} ${target}`);
      }
    }
  }
  return lines;
}

function images(csv: Json | undefined): Set<string> {
  const found = new Set<string>();
  for (const deployment of (csv?.spec?.install?.spec?.deployments ?? []) as Json[]) {
    const pod = deployment.spec?.template?.spec ?? {};
    for (const container of [...(pod.initContainers ?? []), ...(pod.containers ?? [])] as Array<{ image?: string }>) if (container.image) found.add(container.image);
  }
  for (const related of (csv?.spec?.relatedImages ?? []) as Array<{ image?: string }>) if (related.image) found.add(related.image);
  return found;
}

/** `version: path (type)` for every property of every version's schema. */
function schemaFields(crd: Json | undefined): Map<string, string> {
  const fields = new Map<string, string>();
  const walk = (version: string, path: string, schema: Json | undefined, depth: number) => {
    if (!schema || depth > 32) return;
    for (const [name, child] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
      const childPath = `${path}.${name}`;
      fields.set(`${version}: ${childPath}`, String(child.type ?? 'object'));
      walk(version, childPath, child, depth + 1);
    }
    if (schema.items) walk(version, `${path}[]`, schema.items as Json, depth + 1);
  };
  for (const version of (crd?.spec?.versions ?? []) as Json[]) walk(String(version.name), '', version.schema?.openAPIV3Schema, 0);
  return fields;
}

function crdChange(name: string, live: Json | undefined, next: Json): CrdChange {
  if (!live) return { name, changes: ['new CRD'] };
  const versions = (crd: Json) => new Set(((crd.spec?.versions ?? []) as Json[]).map((version) => String(version.name)));
  const [before, after] = [versions(live), versions(next)];
  const changes = [...after].filter((version) => !before.has(version)).map((version) => `version ${version} added`);
  changes.push(...[...before].filter((version) => !after.has(version)).map((version) => `version ${version} removed`));
  const [oldFields, newFields] = [schemaFields(live), schemaFields(next)];
  for (const [field, type] of newFields) {
    const version = field.slice(0, field.indexOf(':'));
    if (!before.has(version)) continue;
    if (!oldFields.has(field)) changes.push(`field ${field} added (${type})`);
    else if (oldFields.get(field) !== type) changes.push(`field ${field} changed type from ${oldFields.get(field)} to ${type}`);
  }
  for (const field of oldFields.keys()) if (after.has(field.slice(0, field.indexOf(':'))) && !newFields.has(field)) changes.push(`field ${field} removed`);
  return { name, changes };
}

const difference = (a: Set<string>, b: Set<string>) => [...a].filter((item) => !b.has(item)).sort();

function manifestOf(step: Json): Json | undefined {
  try {
    const manifest = JSON.parse(String(step.resource?.manifest ?? ''));
    return manifest?.kind === step.resource?.kind ? (manifest as Json) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What approving `plan` changes for the operator `to` (a CSV of the plan): permissions and images from the
 * installed CSV `from` to the new one, and each CRD the plan applies against the live one.
 */
export function upgradeChanges(plan: Json, to: string, from: Json | undefined, liveCrds: ReadonlyMap<string, Json>): UpgradeChanges {
  const steps = (plan.status?.plan ?? []) as Json[];
  const unknown: string[] = [];
  const known = (step: Json) => {
    const manifest = manifestOf(step);
    if (!manifest) unknown.push(`${step.resource?.kind} ${step.resource?.name}`);
    return manifest;
  };
  const csvStep = steps.find((step) => step.resource?.kind === 'ClusterServiceVersion' && step.resource?.name === to);
  const next = csvStep ? known(csvStep) : undefined;
  const crds = steps
    .filter((step) => step.resolving === to && step.resource?.kind === 'CustomResourceDefinition')
    .flatMap((step) => {
      const manifest = known(step);
      return manifest ? [crdChange(String(step.resource.name), liveCrds.get(String(step.resource.name)), manifest)] : [];
    });
  const [oldPermissions, newPermissions] = [permissionLines(from), permissionLines(next)];
  const [oldImages, newImages] = [images(from), images(next)];
  return {
    permissions: next ? { added: difference(newPermissions, oldPermissions), removed: difference(oldPermissions, newPermissions) } : { added: [], removed: [] },
    images: next ? { added: difference(newImages, oldImages), removed: difference(oldImages, newImages) } : { added: [], removed: [] },
    crds,
    unknown,
  };
}

export function formatUpgradeChanges(changes: UpgradeChanges): string {
  const lines: string[] = [];
  const section = (title: string, added: readonly string[], removed: readonly string[]) => {
    lines.push(`${title}: ${added.length === 0 && removed.length === 0 ? 'unchanged' : ''}`.trimEnd());
    for (const item of added) lines.push(`  + ${item}`);
    for (const item of removed) lines.push(`  - ${item}`);
  };
  section('permissions', changes.permissions.added, changes.permissions.removed);
  section('images', changes.images.added, changes.images.removed);
  lines.push(`CRDs: ${changes.crds.length === 0 ? 'none applied' : ''}`.trimEnd());
  for (const crd of changes.crds) lines.push(`  ${crd.name}: ${crd.changes.length === 0 ? 'schema unchanged' : crd.changes.join('; ')}`);
  if (changes.unknown.length > 0) lines.push(`not shown (manifest not in the plan): ${changes.unknown.join(', ')}`);
  return `${lines.join('\n')}\n`;
}
