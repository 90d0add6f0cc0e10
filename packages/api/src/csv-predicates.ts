import { Annotations, Labels } from './annotations.js';
import { CSVReasons } from './cluster-service-version.js';
import { apiKey, type ApiKey } from './provided-apis.js';

/** What `isCopied` reads of a CSV (any object from a cache or a list fits). */
export interface CsvCopyView {
  readonly metadata?: {
    readonly namespace?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly status?: { readonly reason?: string };
}

/** `IsCopied`: reason Copied, operator namespace elsewhere, or the `olm.copiedFrom` label. */
export function isCopied(csv: CsvCopyView): boolean {
  const operatorNamespace = csv.metadata?.annotations?.[Annotations.operatorNamespace];
  return (
    csv.status?.reason === CSVReasons.Copied ||
    (operatorNamespace !== undefined && operatorNamespace !== csv.metadata?.namespace) ||
    csv.metadata?.labels?.[Labels.copiedFrom] !== undefined
  );
}

/** What `csvProvidedApis` reads of a CSV. */
export interface CsvOwnedApisView {
  readonly spec?: {
    readonly customresourcedefinitions?: { readonly owned?: ReadonlyArray<{ readonly name: string; readonly version: string; readonly kind: string }> };
    readonly apiservicedefinitions?: { readonly owned?: ReadonlyArray<{ readonly group: string; readonly version: string; readonly kind: string }> };
  };
}

/** The APIs a CSV provides: owned CRDs (group from the CRD name) and owned APIServices, as `Kind.version.group`. */
export function csvProvidedApis(csv: CsvOwnedApisView): Set<ApiKey> {
  const apis = new Set<ApiKey>();
  for (const crd of csv.spec?.customresourcedefinitions?.owned ?? []) {
    const dot = crd.name.indexOf('.');
    if (dot < 0) continue;
    apis.add(apiKey({ group: crd.name.slice(dot + 1), version: crd.version, kind: crd.kind }));
  }
  for (const service of csv.spec?.apiservicedefinitions?.owned ?? []) {
    apis.add(apiKey({ group: service.group, version: service.version, kind: service.kind }));
  }
  return apis;
}
