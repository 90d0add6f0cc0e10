import { CSVPhases, isCopied, type APIServiceDescription, type CRDDescription } from '@olm/api';
import { describeError, type InstalledOperator, type Property } from '@olm/core';
import { propertiesAnnotation } from '../bundles/bundle-steps.js';
import { nameOf, type CsvObject } from '../kinds.js';

/**
 * The namespace's non-copied CSVs as the resolver's `@existing` catalog: provided and required APIs from
 * owned/required CRDs and APIServices, properties from the `operatorframework.io/properties` annotation.
 * A CSV that cannot be read fails resolution of the namespace, as upstream.
 */
export function installedOperators(namespace: string, csvs: readonly CsvObject[]): InstalledOperator[] {
  return csvs
    .filter((csv) => !isCopied(csv))
    .map((csv) => {
      const spec: Partial<CsvObject['spec']> = csv.spec ?? {};
      const fail = (detail: string) => new Error(`error using catalogsource ${namespace}/@existing: ${detail}`);
      const crdApis = (list: readonly CRDDescription[] | undefined) =>
        (list ?? []).map((crd) => {
          const name = crd.name ?? '';
          const dot = name.indexOf('.');
          if (dot < 1) throw fail(`error parsing crd name: ${name}`);
          return { group: name.slice(dot + 1), version: crd.version ?? '', kind: crd.kind ?? '' };
        });
      const apiServiceApis = (list: readonly APIServiceDescription[] | undefined) =>
        (list ?? []).map((api) => ({ group: api.group ?? '', version: api.version ?? '', kind: api.kind ?? '' }));
      let properties: Property[] | undefined;
      try {
        properties = propertiesFromAnnotation(csv);
      } catch (error) {
        throw fail(`failed to retrieve properties of csv ${JSON.stringify(nameOf(csv))}: ${describeError(error)}`);
      }
      const phase = csv.status?.phase;
      return {
        name: nameOf(csv),
        ...(properties ? { properties } : {}),
        providedApis: [...crdApis(spec.customresourcedefinitions?.owned), ...apiServiceApis(spec.apiservicedefinitions?.owned)],
        requiredApis: [...crdApis(spec.customresourcedefinitions?.required), ...apiServiceApis(spec.apiservicedefinitions?.required)],
        ...(spec.version ? { version: spec.version } : {}),
        ...(spec.replaces ? { replaces: spec.replaces } : {}),
        ...(phase ? { phase } : {}),
      };
    });
}

/** The `operatorframework.io/properties` annotation's list; absent when there is no annotation; throws when it is malformed. */
function propertiesFromAnnotation(csv: CsvObject): Property[] | undefined {
  const text = csv.metadata?.annotations?.[propertiesAnnotation];
  if (text === undefined) return undefined;
  const parsed = JSON.parse(text) as unknown;
  const properties = (parsed as { properties?: unknown } | null)?.properties;
  if (properties === undefined) return [];
  if (!Array.isArray(properties) || !properties.every((item) => typeof item === 'object' && item !== null && typeof (item as { type?: unknown }).type === 'string')) {
    throw new Error('"properties" must be a list of {"type", "value"} objects');
  }
  return properties as Property[];
}

/**
 * A CSV in the namespace that another, not failed, CSV replaces: an upgrade the CSV controller is
 * carrying out. Until it deletes the replaced CSV, that CSV is installed but no Subscription's any
 * more, so resolution sees a freestanding operator next to its own replacement and cannot be
 * satisfied; that passes on its own when the replaced CSV goes (whose deletion resolves again).
 */
export function replacementInProgress(csvs: readonly CsvObject[]): string | undefined {
  const own = csvs.filter((csv) => !isCopied(csv));
  const names = new Set(own.map(nameOf));
  const replacing = own.find((csv) => {
    const replaces = csv.spec?.replaces;
    return replaces !== undefined && names.has(replaces) && csv.status?.phase !== CSVPhases.Failed;
  });
  return replacing && `${nameOf(replacing)} replaces ${replacing.spec?.replaces}`;
}
