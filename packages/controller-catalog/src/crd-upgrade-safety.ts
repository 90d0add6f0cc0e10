import { compileSchema, formatFieldError, type JSONSchemaProps } from '@olm/structural-schema';

interface CrdVersion {
  readonly name: string;
  readonly served?: boolean;
  readonly storage?: boolean;
  readonly schema?: { readonly openAPIV3Schema?: JSONSchemaProps };
}

/** The CustomResourceDefinition fields the upgrade check reads. */
export interface CrdView {
  readonly metadata: { readonly name: string };
  readonly spec: {
    readonly group: string;
    readonly names: { readonly kind: string; readonly plural: string };
    readonly versions: readonly CrdVersion[];
    readonly conversion?: { readonly strategy?: string };
  };
  readonly status?: { readonly storedVersions?: readonly string[] };
}

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

/**
 * Upstream's CRD upgrade safety check: every version the old CRD serves and the new one still serves
 * must accept the existing objects of that version under the new schema (unless a conversion webhook
 * is configured), and no version listed in the old CRD's `status.storedVersions` may disappear.
 */
export async function checkCrdUpgrade(oldCrd: CrdView, newCrd: CrdView, listObjects: ListCustomResources): Promise<CrdUpgradeVerdict> {
  const name = newCrd.metadata.name;
  const newVersions = new Map(newCrd.spec.versions.map((version) => [version.name, version]));
  for (const stored of oldCrd.status?.storedVersions ?? []) {
    if (!newVersions.has(stored)) {
      return {
        error: `risk of data loss updating ${JSON.stringify(name)}: new CRD removes version ${stored} that is listed as a stored version on the existing CRD`,
        warnings: [],
      };
    }
  }

  const warnings: string[] = [];
  const usesWebhook = newCrd.spec.conversion?.strategy === 'Webhook';
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
      const problem = `error validating ${gvk} ${JSON.stringify(object.metadata?.name ?? '')}: updated validation is too restrictive: ${details.length === 1 ? details[0] : `[${details.join(', ')}]`}`;
      const message = `error validating existing CRs against new CRD's schema for ${JSON.stringify(name)}: ${problem}`;
      if (!usesWebhook) return { error: message, warnings };
      warnings.push(message);
    }
  }
  return { warnings };
}
