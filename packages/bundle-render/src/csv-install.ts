import { InstallModeTypes, type InstallModeType } from '@olm/api';
import { hasErrorCode, type KubeObject } from '@olm/core';
import { readInstallPermissions, type CsvPermission } from '@olm/plugin-rbac';
import { RenderErrorCodes, renderError } from './errors.js';
import { describe, isRecord } from './bundle-manifests.js';

/** One `spec.install.spec.deployments[]` entry, checked. */
export interface StrategyDeployment {
  readonly name: string;
  readonly spec: Record<string, unknown>;
  readonly label: Readonly<Record<string, string>>;
}

/** What the renderer reads from the CSV. */
export interface CsvInstall {
  readonly name: string;
  readonly annotations: Readonly<Record<string, string>>;
  readonly supportedInstallModes: ReadonlySet<InstallModeType>;
  readonly permissions: readonly CsvPermission[];
  readonly clusterPermissions: readonly CsvPermission[];
  readonly deployments: readonly StrategyDeployment[];
}

// A DNS-1123 subdomain, as the API server checks Deployment names.
const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Reads and checks the CSV as upstream's registry+v1 validators do, refusing what OLM v1 cannot
 * install: webhooks and API services (no certificate provider), owned CRDs missing from the bundle,
 * duplicate or invalid deployment names, duplicate CRDs.
 */
export function readCsvInstall(bundle: string, csv: KubeObject, crds: readonly KubeObject[]): CsvInstall {
  const spec = isRecord(csv.spec) ? csv.spec : {};
  refuseServedApis(bundle, spec);
  checkCrds(bundle, spec, crds);
  const { permissions, clusterPermissions } = readPermissions(bundle, csv);
  checkServiceAccountNames(bundle, permissions, 'permissions');
  checkServiceAccountNames(bundle, clusterPermissions, 'clusterPermissions');
  return {
    name: csv.metadata.name!,
    annotations: stringMap(bundle, csv.metadata.annotations, 'metadata.annotations'),
    supportedInstallModes: readInstallModes(bundle, spec.installModes),
    permissions,
    clusterPermissions,
    deployments: readDeployments(bundle, spec),
  };
}

/** Webhooks and API services need serving certificates, which only a certificate provider makes. */
function refuseServedApis(bundle: string, spec: Record<string, unknown>): void {
  const webhooks = Array.isArray(spec.webhookdefinitions) ? spec.webhookdefinitions : [];
  if (webhooks.length > 0) {
    const names = webhooks.map((webhook) => (isRecord(webhook) ? `${String(webhook.type)} ${String(webhook.generateName)}` : '?')).slice(0, 10);
    throw renderError(
      RenderErrorCodes.unsupportedBundle,
      `bundle ${bundle} defines ${webhooks.length} webhook(s) in spec.webhookdefinitions (${names.join(', ')}); ` +
        'OLM v1 serves webhooks only with a certificate provider and none is configured: install this operator with OLM v0 (a Subscription) or choose a bundle without webhooks',
      { bundle, field: 'spec.webhookdefinitions' },
    );
  }
  const apiServices = isRecord(spec.apiservicedefinitions) && Array.isArray(spec.apiservicedefinitions.owned) ? spec.apiservicedefinitions.owned : [];
  if (apiServices.length > 0) {
    const names = apiServices.map((api) => (isRecord(api) ? `${String(api.name)}/${String(api.version)}` : '?')).slice(0, 10);
    throw renderError(
      RenderErrorCodes.unsupportedBundle,
      `bundle ${bundle} owns ${apiServices.length} API service(s) in spec.apiservicedefinitions.owned (${names.join(', ')}); ` +
        'OLM v1 does not install aggregated API services: install this operator with OLM v0 (a Subscription) or choose a bundle without them',
      { bundle, field: 'spec.apiservicedefinitions.owned' },
    );
  }
}

function checkCrds(bundle: string, spec: Record<string, unknown>, crds: readonly KubeObject[]): void {
  const names = new Set<string>();
  for (const crd of crds) {
    if (names.has(crd.metadata.name!)) {
      throw renderError(RenderErrorCodes.invalidBundle, `bundle ${bundle} contains ${describe(crd)} twice; remove the duplicate`, { bundle });
    }
    names.add(crd.metadata.name!);
  }
  const owned = isRecord(spec.customresourcedefinitions) && Array.isArray(spec.customresourcedefinitions.owned) ? spec.customresourcedefinitions.owned : [];
  const missing = owned.map((entry) => (isRecord(entry) ? String(entry.name) : '')).filter((name) => !names.has(name));
  if (missing.length > 0) {
    throw renderError(
      RenderErrorCodes.invalidBundle,
      `bundle ${bundle}: spec.customresourcedefinitions.owned names ${missing.slice(0, 10).join(', ')}, not among the bundle's CRDs; add the CRD manifests to the bundle`,
      { bundle, missing },
    );
  }
}

/** plugin-rbac's reader, its errors restated for the bundle (they already name the CSV field). */
function readPermissions(bundle: string, csv: KubeObject) {
  try {
    return readInstallPermissions(csv);
  } catch (error) {
    if (!hasErrorCode(error)) throw error;
    throw renderError(RenderErrorCodes.invalidBundle, `bundle ${bundle}: ${error.message}`, { bundle, cause: error.code });
  }
}

/** The names become ServiceAccounts and binding subjects: the API server would refuse a bad one mid-apply. */
function checkServiceAccountNames(bundle: string, permissions: readonly CsvPermission[], field: string): void {
  permissions.forEach(({ serviceAccountName }, index) => {
    if (serviceAccountName.length > 253 || !dns1123Subdomain.test(serviceAccountName)) {
      throw renderError(
        RenderErrorCodes.invalidBundle,
        `bundle ${bundle}: spec.install.spec.${field}[${index}].serviceAccountName ${JSON.stringify(serviceAccountName.slice(0, 300))} ` +
          "is not a valid ServiceAccount name (a DNS-1123 subdomain: lowercase letters, digits, '-' and '.', at most 253 characters)",
        { bundle, field: `spec.install.spec.${field}[${index}].serviceAccountName` },
      );
    }
  });
}

function readInstallModes(bundle: string, value: unknown): ReadonlySet<InstallModeType> {
  if (value !== undefined && !Array.isArray(value)) {
    throw renderError(RenderErrorCodes.invalidBundle, `bundle ${bundle}: spec.installModes must be a list of {type, supported}`, { bundle });
  }
  const known = new Set<string>(Object.values(InstallModeTypes));
  const supported = new Set<InstallModeType>();
  for (const mode of (value as unknown[] | undefined) ?? []) {
    if (isRecord(mode) && mode.supported === true && typeof mode.type === 'string' && known.has(mode.type)) {
      supported.add(mode.type as InstallModeType);
    }
  }
  return supported;
}

function readDeployments(bundle: string, spec: Record<string, unknown>): StrategyDeployment[] {
  const install = isRecord(spec.install) && isRecord(spec.install.spec) ? spec.install.spec : {};
  const entries = install.deployments ?? [];
  if (!Array.isArray(entries)) {
    throw renderError(RenderErrorCodes.invalidBundle, `bundle ${bundle}: spec.install.spec.deployments must be a list`, { bundle });
  }
  const seen = new Set<string>();
  return entries.map((entry: unknown, index) => {
    const where = `spec.install.spec.deployments[${index}]`;
    if (!isRecord(entry) || typeof entry.name !== 'string' || !dns1123Subdomain.test(entry.name) || entry.name.length > 253) {
      throw renderError(
        RenderErrorCodes.invalidBundle,
        `bundle ${bundle}: ${where}.name must be a DNS-1123 subdomain (lowercase letters, digits, '-' and '.', at most 253 characters)`,
        { bundle, field: `${where}.name` },
      );
    }
    if (seen.has(entry.name)) {
      throw renderError(RenderErrorCodes.invalidBundle, `bundle ${bundle}: ${where}.name ${JSON.stringify(entry.name)} is used by another deployment; names must be unique`, {
        bundle,
        field: `${where}.name`,
      });
    }
    seen.add(entry.name);
    if (!isRecord(entry.spec) || !isRecord(entry.spec.template)) {
      throw renderError(RenderErrorCodes.invalidBundle, `bundle ${bundle}: ${where}.spec must be a Deployment spec with a template`, { bundle, field: `${where}.spec` });
    }
    return { name: entry.name, spec: entry.spec, label: stringMap(bundle, entry.label, `${where}.label`) };
  });
}

function stringMap(bundle: string, value: unknown, field: string): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isRecord(value) || !Object.values(value).every((item) => typeof item === 'string')) {
    throw renderError(RenderErrorCodes.invalidBundle, `bundle ${bundle}: ${field} must map strings to strings`, { bundle, field });
  }
  return value as Record<string, string>;
}
