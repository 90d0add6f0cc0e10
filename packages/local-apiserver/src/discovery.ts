import type { JsonObject } from './kube-object.js';
import { compareKubeVersions, groupVersion, type ResourceRegistry, type ResourceType } from './resource-type.js';

/** Unaggregated discovery documents: /version, /api, /apis, /api/v1, /apis/<group>[/<version>]. */

/** `/version`: k8s.io/apimachinery's version.Info. */
export interface VersionInfo {
  readonly major: string;
  readonly minor: string;
  readonly gitVersion: string;
  readonly gitCommit: string;
  readonly gitTreeState: string;
  readonly buildDate: string;
  readonly goVersion: string;
  readonly compiler: string;
  readonly platform: string;
}

export const defaultKubernetesVersion = 'v1.32.4';

/** `v1.28.3`, `v1.29.0-rc.1`, `v1.28.3+k3s1`: a release tag as kube-apiserver reports it. */
const gitVersionPattern = /^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

/**
 * The `/version` of a server reporting `gitVersion`; throws, saying how to write it, when it is no
 * Kubernetes release tag. Only major, minor and gitVersion follow it: the build fields are v1.32.4's.
 */
export function versionInfo(gitVersion: string = defaultKubernetesVersion): VersionInfo {
  const match = gitVersionPattern.exec(gitVersion);
  if (!match) {
    throw new Error(`kubernetesVersion ${JSON.stringify(gitVersion)} is not a Kubernetes version: write it as its release tag, v<major>.<minor>.<patch> (for example v1.28.3)`);
  }
  return {
    major: match[1] ?? '1',
    minor: match[2] ?? '0',
    gitVersion,
    gitCommit: '59526cd4867447956156ae3a602fcbac10a2c335',
    gitTreeState: 'clean',
    buildDate: '2025-04-22T16:02:27Z',
    goVersion: 'go1.23.6',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

/** What `/version` reports by default. */
export const serverVersion: VersionInfo = versionInfo();

export function apiVersions(serverAddress: string): JsonObject {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupDocument(name: string, versions: string[]): JsonObject {
  const sorted = [...versions].sort(compareKubeVersions);
  const entries = sorted.map((version) => ({ groupVersion: groupVersion(name, version), version }));
  return { name, versions: entries, preferredVersion: entries[0] };
}

export function apiGroupList(registry: ResourceRegistry): JsonObject {
  const groups = [...registry.groups()].filter(([name]) => name !== '');
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: groups.map(([name, versions]) => groupDocument(name, versions)),
  };
}

export function apiGroup(registry: ResourceRegistry, group: string): JsonObject | undefined {
  const versions = registry.groups().get(group);
  if (!versions || group === '') return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupDocument(group, versions) };
}

function resourceEntries(type: ResourceType): JsonObject[] {
  const main: JsonObject = {
    name: type.plural,
    singularName: type.singular,
    namespaced: type.namespaced,
    kind: type.kind,
    verbs: [...type.verbs],
  };
  if (type.shortNames.length > 0) main['shortNames'] = [...type.shortNames];
  if (type.categories.length > 0) main['categories'] = [...type.categories];
  const entries = [main];
  if (type.statusSubresource) {
    entries.push({ name: `${type.plural}/status`, singularName: '', namespaced: type.namespaced, kind: type.kind, verbs: ['get', 'patch', 'update'] });
  }
  if (type.scale) {
    entries.push({ name: `${type.plural}/scale`, singularName: '', namespaced: type.namespaced, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
  }
  for (const extra of type.additionalSubresources ?? []) {
    entries.push({ name: `${type.plural}/${extra.name}`, singularName: '', namespaced: type.namespaced, group: extra.group, version: extra.version, kind: extra.kind, verbs: [...extra.verbs] });
  }
  return entries;
}

export function apiResourceList(registry: ResourceRegistry, group: string, version: string): JsonObject | undefined {
  const types = registry.inGroupVersion(group, version).sort((left, right) => left.plural.localeCompare(right.plural));
  if (types.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: groupVersion(group, version),
    resources: types.flatMap(resourceEntries),
  };
}
