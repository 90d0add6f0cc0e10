import { compileSchema, formatFieldError } from '@olm/structural-schema';
import type { CrdVersion, CrdView } from './crd-view.js';

export interface CustomResource {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: { readonly name?: string; readonly namespace?: string };
  readonly [field: string]: unknown;
}

/** Lists the existing objects of one version of the CRD (all pages). */
export type ListCustomResources = (version: string) => Promise<readonly CustomResource[]>;

export interface CrdUpgradeVerdict {
  /** Set when the upgrade must not happen: upstream's message, for the InstallPlan. */
  readonly error?: string;
  /** Problems that do not block the upgrade (a conversion webhook may fix the objects): warning events. */
  readonly warnings: readonly string[];
}

/** The warning event upstream records when existing objects fail the new schema but a conversion webhook may fix them. */
export function webhookValidationWarning(crdName: string, validationError: string): string {
  return [
    "Validation of existing CRs against the new CRD's schema failed, but a webhook conversion strategy was specified in the new CRD.",
    'The new webhook will only start after the bundle is upgraded, so we must assume that it will successfully convert existing CRs to a format that would have passed validation.',
    '',
    `CRD: ${JSON.stringify(crdName)}`,
    `Validation Error: ${validationError}`,
    '',
  ].join('\n');
}

/**
 * Upstream's CRD upgrade safety check, in upstream's order: first every version the old CRD serves
 * and the new one still serves must accept the existing objects of that version under the new schema
 * (the first object that does not is reported; with a conversion webhook it is only a warning), then
 * no version listed in the old CRD's `status.storedVersions` may disappear.
 */
export async function checkCrdUpgrade(oldCrd: CrdView, newCrd: CrdView, listObjects: ListCustomResources): Promise<CrdUpgradeVerdict> {
  const name = newCrd.metadata.name;
  const newVersions = new Map(newCrd.spec.versions.map((version) => [version.name, version]));
  const warnings: string[] = [];
  const invalid = await firstInvalidObject(oldCrd, newCrd, newVersions, listObjects);
  if (invalid) {
    if (newCrd.spec.conversion?.strategy !== 'Webhook') {
      return { error: `error validating existing CRs against new CRD's schema for ${JSON.stringify(name)}: ${invalid}`, warnings };
    }
    warnings.push(webhookValidationWarning(name, invalid));
  }
  for (const stored of oldCrd.status?.storedVersions ?? []) {
    if (!newVersions.has(stored)) {
      return {
        error: `risk of data loss updating ${JSON.stringify(name)}: new CRD removes version ${stored} that is listed as a stored version on the existing CRD`,
        warnings,
      };
    }
  }
  const removedServed = await firstRemovedServedVersionInUse(oldCrd, newVersions, listObjects);
  if (removedServed) return { error: removedServedVersionMessage(name, removedServed.version, removedServed.count), warnings };
  return { warnings };
}

/**
 * OLM's documented rule: a served version may not disappear at once while objects exist (clients read
 * and write them in that version); an upgrade first marks it `served: false`, a later one removes it.
 */
async function firstRemovedServedVersionInUse(
  oldCrd: CrdView,
  newVersions: ReadonlyMap<string, CrdVersion>,
  listObjects: ListCustomResources,
): Promise<{ version: string; count: number } | undefined> {
  for (const oldVersion of oldCrd.spec.versions) {
    if (!oldVersion.served || newVersions.has(oldVersion.name)) continue;
    const count = (await listObjects(oldVersion.name)).length;
    if (count > 0) return { version: oldVersion.name, count };
  }
  return undefined;
}

export function removedServedVersionMessage(crdName: string, version: string, count: number): string {
  return (
    `not allowing CRD (${crdName}) update with unincluded version ${version}: it is served and ${count} existing custom resource${count === 1 ? '' : 's'} ` +
    `can be read in it; set served: false on ${version} in one upgrade and remove it in a later one`
  );
}

/** The validation error of the first existing object the new schema rejects, named `<namespace>/<name>` when namespaced. */
async function firstInvalidObject(
  oldCrd: CrdView,
  newCrd: CrdView,
  newVersions: ReadonlyMap<string, CrdVersion>,
  listObjects: ListCustomResources,
): Promise<string | undefined> {
  for (const oldVersion of oldCrd.spec.versions) {
    const newVersion = newVersions.get(oldVersion.name);
    if (!oldVersion.served || !newVersion?.served) continue;
    const schema = newVersion.schema?.openAPIV3Schema;
    if (!schema) continue;
    const compiled = compileSchema(schema);
    for (const object of await listObjects(oldVersion.name)) {
      const errors = compiled.validate(object);
      if (errors.length === 0) continue;
      const details = errors.map(formatFieldError);
      const gvk = `${newCrd.spec.group}/${oldVersion.name}, Kind=${newCrd.spec.names.kind}`;
      const objectName = object.metadata?.namespace ? `${object.metadata.namespace}/${object.metadata.name ?? ''}` : (object.metadata?.name ?? '');
      return `error validating ${gvk} ${JSON.stringify(objectName)}: updated validation is too restrictive: ${details.length === 1 ? details[0] : `[${details.join(', ')}]`}`;
    }
  }
  return undefined;
}
