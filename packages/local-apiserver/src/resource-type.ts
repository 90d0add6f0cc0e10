import type { KubeObject } from './kube-object.js';
import type { ListKind } from './managed-fields.js';
import type { ScaleSubresource } from './scale-subresource.js';

/** A column of `kubectl get` output (a `TableColumnDefinition` plus how to compute its cell). */
export interface PrinterColumn {
  readonly name: string;
  readonly type: string;
  readonly format?: string;
  readonly description?: string;
  readonly priority: number;
  cell(object: KubeObject): unknown;
}

/** Validation, pruning and defaulting of one served version of a custom resource. */
export interface VersionSchema {
  validate(object: KubeObject): { field: string; type: string; message: string; value?: unknown }[];
  prune(object: KubeObject): { object: KubeObject; unknownFields: string[] };
  applyDefaults(object: KubeObject): KubeObject;
  /** The raw `openAPIV3Schema`, for OpenAPI documents and `kubectl explain`. */
  readonly raw: Record<string, unknown>;
}

export interface ResourceType {
  readonly group: string;
  /** Served versions, preferred first. */
  readonly versions: readonly string[];
  readonly storageVersion: string;
  readonly plural: string;
  readonly singular: string;
  readonly kind: string;
  readonly listKind: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly verbs: readonly string[];
  /** Has a `status` subresource (main endpoint ignores status; `/status` changes only status). */
  readonly statusSubresource: boolean;
  /** Has a `scale` subresource (autoscaling/v1 Scale over the replica count). */
  readonly scale?: ScaleSubresource;
  /** Sets and bumps `metadata.generation`. */
  readonly tracksGeneration: boolean;
  /** Built-in kinds accept strategic merge patches. */
  readonly strategicMerge: boolean;
  /** CRs and CRDs refuse updates without `metadata.resourceVersion`. */
  readonly requiresResourceVersionOnUpdate: boolean;
  /** Fields usable in `fieldSelector` besides metadata.name and metadata.namespace. */
  readonly fieldLabels?: Readonly<Record<string, (object: KubeObject) => string>>;
  readonly columns?: (version: string) => readonly PrinterColumn[];
  readonly schemas?: ReadonlyMap<string, VersionSchema | undefined>;
  /** Cluster-scoped objects that may not be deleted (seeded namespaces). */
  readonly isDeletionForbidden?: (object: KubeObject) => boolean;
  /** Set for custom resources: the CRD that defines them. */
  readonly crdName?: string;
  /** Versions that are deprecated → the warning every request to them carries (`Warning: 299 - "…"`). */
  readonly deprecationWarnings?: ReadonlyMap<string, string>;
  /** How server-side apply identifies the items of a custom resource's list, by field path (undefined: atomic). */
  readonly associativeList?: (path: readonly string[]) => ListKind | undefined;
  /** Whether the schema node at this path is a map (`additionalProperties`) rather than a struct. */
  readonly mapFields?: (path: readonly string[]) => boolean;
  /** Subresources served outside the generic handler (a ServiceAccount's `token`), for discovery. */
  readonly additionalSubresources?: readonly AdditionalSubresource[];
}

/** A subresource of another kind than its resource, as discovery lists it (`serviceaccounts/token`). */
export interface AdditionalSubresource {
  readonly name: string;
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly verbs: readonly string[];
}

export function resourceKey(type: { group: string; plural: string }): string {
  return `${type.group}/${type.plural}`;
}

export function groupVersion(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** `Kind` in the core group and `Kind.group` elsewhere, as in "is invalid" messages. */
export function qualifiedKind(type: ResourceType): string {
  return type.group === '' ? type.kind : `${type.kind}.${type.group}`;
}

export const allVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] as const;

/** Every resource type served right now: the built-ins plus the established CRDs. */
export class ResourceRegistry {
  private readonly byKey = new Map<string, ResourceType>();
  private changeCounter = 0;
  private readonly listeners = new Set<() => void>();

  add(type: ResourceType): void {
    this.byKey.set(resourceKey(type), type);
    this.changed();
  }

  remove(group: string, plural: string): void {
    if (this.byKey.delete(`${group}/${plural}`)) this.changed();
  }

  private changed(): void {
    this.changeCounter++;
    for (const listener of this.listeners) listener();
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Increases whenever the set of served types changes (for OpenAPI cache-busting hashes). */
  get generation(): number {
    return this.changeCounter;
  }

  get(group: string, plural: string): ResourceType | undefined {
    return this.byKey.get(`${group}/${plural}`);
  }

  /** The type served at `group/version` under `plural`. */
  lookup(group: string, version: string, plural: string): ResourceType | undefined {
    const type = this.byKey.get(`${group}/${plural}`);
    return type && type.versions.includes(version) ? type : undefined;
  }

  byKind(group: string, kind: string): ResourceType | undefined {
    for (const type of this.byKey.values()) if (type.group === group && type.kind === kind) return type;
    return undefined;
  }

  all(): ResourceType[] {
    return [...this.byKey.values()];
  }

  /** Group → served versions (preferred first), with `''` for the core group. */
  groups(): Map<string, string[]> {
    const groups = new Map<string, string[]>();
    for (const type of this.byKey.values()) {
      const versions = groups.get(type.group) ?? [];
      for (const version of type.versions) if (!versions.includes(version)) versions.push(version);
      groups.set(type.group, versions);
    }
    for (const versions of groups.values()) versions.sort(compareKubeVersions);
    return groups;
  }

  inGroupVersion(group: string, version: string): ResourceType[] {
    return this.all().filter((type) => type.group === group && type.versions.includes(version));
  }
}

/** Kubernetes version priority: GA > beta > alpha, then higher numbers first (v2 > v1 > v1beta2). */
export function compareKubeVersions(left: string, right: string): number {
  const rank = (version: string): [number, number, number] => {
    const match = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(version);
    if (!match) return [-1, 0, 0];
    const stability = match[2] === undefined ? 3 : match[2] === 'beta' ? 2 : 1;
    return [stability, Number(match[1]), Number(match[3] ?? 0)];
  };
  const [ls, lm, ln] = rank(left);
  const [rs, rm, rn] = rank(right);
  if (ls !== rs) return rs - ls;
  if (lm !== rm) return rm - lm;
  if (ln !== rn) return rn - ln;
  return left.localeCompare(right);
}
