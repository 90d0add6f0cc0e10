import { randomUUID } from 'node:crypto';
import { builtinListKind } from './builtin-list-keys.js';
import { builtinDecodingError } from './builtin-decoding.js';
import { applyBuiltinDefaults, immutableFieldProblems, nameRuleFor, validateBuiltin } from './builtin-strategies.js';
import {
  alreadyExists,
  StatusError,
  badRequest,
  conflict,
  expired,
  forbidden,
  invalid,
  methodNotAllowed,
  notFound,
  optimisticLockMessage,
  pathNotFound,
  unsupportedMediaType,
  type FieldProblem,
} from './errors.js';
import { parseFieldSelector, type FieldSelector } from './field-selector.js';
import { applyJsonPatch } from './json-patch.js';
import { deepClone, deepEqual, isJsonObject, nowTimestamp, type JsonObject, type KubeObject } from './kube-object.js';
import type { Selector } from '@olm/label-selector';
import { parseLabelSelector } from './label-selector.js';
import { recordUpdate, serverSideApply, sortManagedFields, type ListKeys } from './managed-fields.js';
import { applyMergePatch } from './merge-patch.js';
import { canonicalMetadata, canonicalObject } from './go-json.js';
import { generateNameSuffix, validateObjectName } from './object-names.js';
import { groupVersion, qualifiedKind, resourceKey, type ResourceRegistry, type ResourceType } from './resource-type.js';
import { requestedReplicas, scaleApiVersion, scaleOf, withReplicas, type ScaleSubresource } from './scale-subresource.js';
import type { Store, StoreEvent } from './store.js';
import { decodeContinue, encodeContinue } from './continue-token.js';
import { validateMetadata } from './metadata-validation.js';
import { dataSizeProblems, defaultObjectSizeLimits } from './object-size-limits.js';
import { sameApartFromVolatile, specChanged } from './write-comparison.js';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';

/**
 * The API semantics without HTTP: the write pipeline (decode → default/prune → validate → admission →
 * strategy → commit) and reads with selectors and paging. Internal controllers call it directly.
 */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export interface WriteOptions {
  readonly dryRun?: boolean;
  readonly fieldManager?: string;
  readonly fieldValidation?: FieldValidation;
  /** Warnings for the `Warning` response header are pushed here. */
  readonly warnings?: string[];
  /** Checks the object about to be written (the request's RBAC escalation check); throws to refuse. */
  readonly admission?: (write: { readonly type: ResourceType; readonly object: KubeObject; readonly previous?: KubeObject }) => void;
}

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export interface DeleteOptions extends WriteOptions {
  readonly propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  readonly preconditions?: { uid?: string; resourceVersion?: string };
}

export interface ListOptions {
  readonly labelSelector?: string | null;
  readonly fieldSelector?: string | null;
  readonly limit?: number;
  readonly continueToken?: string | null;
}

export interface ListResult {
  readonly items: KubeObject[];
  readonly resourceVersion: string;
  readonly continueToken?: string;
  readonly remainingItemCount?: number;
}

export type DeleteResult = { readonly deleted: true; readonly object: KubeObject } | { readonly deleted: false; readonly object: KubeObject };

/** Matchers for list and watch filtering. */
export interface ObjectFilter {
  readonly namespace?: string;
  readonly labels: Selector;
  readonly fields: FieldSelector;
  matches(object: KubeObject): boolean;
}

const statusSubresource = 'status';

/** Fields of built-in kinds that are Go maps (owned as a whole too, `.` in managedFields) rather than structs. */
const builtinMapFields = new Set(['data', 'binaryData', 'stringData', 'matchLabels', 'nodeSelector', 'limits', 'requests', 'capacity', 'allocatable']);

export class Cluster {
  constructor(
    readonly registry: ResourceRegistry,
    readonly store: Store,
    private readonly maxDataBytes = defaultObjectSizeLimits.maxDataBytes,
  ) {}

  // ---- reads ----

  get(type: ResourceType, namespace: string | undefined, name: string): KubeObject {
    const object = this.store.get(resourceKey(type), type.namespaced ? namespace : undefined, name);
    if (!object) throw notFound(type, name);
    return object;
  }

  tryGet(type: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.store.get(resourceKey(type), type.namespaced ? namespace : undefined, name);
  }

  filter(type: ResourceType, namespace: string | undefined, labelSelector?: string | null, fieldSelector?: string | null): ObjectFilter {
    const supported = new Set(['metadata.name', 'metadata.namespace', ...Object.keys(type.fieldLabels ?? {})]);
    const labels = parseLabelSelector(labelSelector);
    const fields = parseFieldSelector(fieldSelector, supported);
    const fieldValues = (object: KubeObject): Record<string, string> => {
      const values: Record<string, string> = { 'metadata.name': object.metadata.name ?? '', 'metadata.namespace': object.metadata.namespace ?? '' };
      for (const [field, read] of Object.entries(type.fieldLabels ?? {})) values[field] = read(object);
      return values;
    };
    return {
      ...(namespace !== undefined ? { namespace } : {}),
      labels,
      fields,
      matches: (object) =>
        (namespace === undefined || object.metadata.namespace === namespace) &&
        (labels.requirements.length === 0 || labels.matches(object.metadata.labels)) &&
        (fields.requirements.length === 0 || fields.matches(fieldValues(object))),
    };
  }

  list(type: ResourceType, namespace: string | undefined, options: ListOptions = {}): ListResult {
    const filter = this.filter(type, namespace, options.labelSelector, options.fieldSelector);
    let after: string | undefined;
    let revision = this.store.revision;
    if (options.continueToken) {
      const token = decodeContinue(options.continueToken);
      if (token.revision < this.store.compactedRevision) {
        throw expired('The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.');
      }
      after = token.start;
      revision = token.revision;
    }
    const exactName = filter.fields.exactValue('metadata.name');
    let candidates: Iterable<KubeObject>;
    if (exactName !== undefined && (namespace !== undefined || !type.namespaced)) {
      const one = this.tryGet(type, namespace, exactName);
      candidates = one && (after === undefined || `${one.metadata.namespace ?? ''}/${exactName}` > after) ? [one] : [];
    } else candidates = this.store.iterate(resourceKey(type), type.namespaced ? namespace : undefined, after);
    const limit = options.limit !== undefined && options.limit > 0 ? options.limit : Number.POSITIVE_INFINITY;
    const unfiltered = filter.labels.requirements.length === 0 && filter.fields.requirements.length === 0;
    const items: KubeObject[] = [];
    let continueToken: string | undefined;
    let remaining = 0;
    for (const object of candidates) {
      if (!filter.matches(object)) continue;
      if (items.length >= limit) {
        remaining++;
        // kube-apiserver counts the remaining items only for unfiltered lists; a filtered one stops here.
        if (!unfiltered) break;
        continue;
      }
      items.push(object);
    }
    if (remaining > 0) {
      const last = items[items.length - 1];
      continueToken = encodeContinue(revision, `${last?.metadata.namespace ?? ''}/${last?.metadata.name ?? ''}`);
    }
    return {
      items,
      resourceVersion: String(revision),
      ...(continueToken !== undefined ? { continueToken, ...(unfiltered ? { remainingItemCount: remaining } : {}) } : {}),
    };
  }

  // ---- create ----

  create(type: ResourceType, version: string, namespace: string | undefined, body: unknown, options: WriteOptions = {}): KubeObject {
    const object = this.decode(type, version, body, namespace);
    if (!object.metadata.name && object.metadata.generateName) object.metadata.name = `${object.metadata.generateName}${generateNameSuffix()}`;
    const name = object.metadata.name;
    if (!name) {
      throw invalid(type, qualifiedKind(type), '', [{ field: 'metadata.name', reason: 'FieldValueRequired', message: 'Required value: name or generateName is required' }]);
    }
    this.admitNamespace(type, object.metadata.namespace, name);
    if (type.crdName !== undefined) this.admitCustomResource(type, 'create');
    const metadata = object.metadata;
    delete metadata.uid;
    delete metadata.resourceVersion;
    delete metadata.deletionTimestamp;
    delete metadata.deletionGracePeriodSeconds;
    delete metadata.generation;
    delete metadata.creationTimestamp;
    metadata.uid = randomUUID();
    metadata.creationTimestamp = nowTimestamp();
    if (type.tracksGeneration) metadata.generation = 1;
    if (type.statusSubresource && !(type.group === '' && (type.plural === 'namespaces' || type.plural === 'pods'))) delete object['status'];
    let prepared = this.prepare(type, version, object, true, options);
    options.admission?.({ type, object: prepared });
    const managedFields = prepared.metadata.managedFields;
    prepared.metadata.managedFields = sortManagedFields(
      managedFields ?? recordUpdate({ previous: undefined, next: prepared, manager: this.managerName(options), apiVersion: groupVersion(type.group, version), listKeys: this.listKeys(type) }),
    );
    if (prepared.metadata.managedFields.length === 0) delete prepared.metadata.managedFields;
    // A placeholder that keeps the key in place; the store sets the real revision.
    prepared.metadata.resourceVersion = '0';
    prepared = canonicalMetadata(type, prepared);
    if (this.tryGet(type, prepared.metadata.namespace, name)) throw alreadyExists(type, name);
    if (options.dryRun) {
      delete prepared.metadata.resourceVersion;
      return this.toVersion(type, prepared, version);
    }
    this.store.put(resourceKey(type), prepared);
    return this.toVersion(type, prepared, version);
  }

  // ---- update ----

  update(type: ResourceType, version: string, namespace: string | undefined, name: string, body: unknown, options: WriteOptions & { subresource?: string } = {}): KubeObject {
    const incoming = this.decode(type, version, body, namespace);
    if (incoming.metadata.name !== undefined && incoming.metadata.name !== name) {
      throw badRequest(`the name of the object (${incoming.metadata.name}) does not match the name on the URL (${name})`);
    }
    incoming.metadata.name = name;
    const existing = this.tryGet(type, namespace, name);
    if (!existing) throw notFound(type, name);
    if (incoming.metadata.uid !== undefined && incoming.metadata.uid !== '' && incoming.metadata.uid !== existing.metadata.uid) {
      throw conflict(type, name, `Precondition failed: UID in precondition: ${incoming.metadata.uid}, UID in object meta: ${existing.metadata.uid ?? ''}`);
    }
    const requested = incoming.metadata.resourceVersion;
    if (requested === undefined || requested === '') {
      if (type.requiresResourceVersionOnUpdate) {
        throw invalid(type, qualifiedKind(type), name, [{ field: 'metadata.resourceVersion', reason: 'FieldValueInvalid', message: 'Invalid value: 0x0: must be specified for an update' }]);
      }
    } else if (requested !== existing.metadata.resourceVersion) throw conflict(type, name, optimisticLockMessage);
    return this.write(type, version, existing, incoming, options, undefined);
  }

  // ---- patch ----

  patch(
    type: ResourceType,
    version: string,
    namespace: string | undefined,
    name: string,
    patchType: PatchType,
    patchBody: unknown,
    options: WriteOptions & { subresource?: string; force?: boolean } = {},
  ): KubeObject {
    const existing = this.tryGet(type, namespace, name);
    if (patchType === 'apply') return this.apply(type, version, namespace, name, existing, patchBody, options);
    if (!existing) throw notFound(type, name);
    if (patchType === 'strategic' && !type.strategicMerge) {
      throw unsupportedMediaType(
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
      );
    }
    const current = this.toVersion(type, existing, version);
    let patched: unknown;
    if (patchType === 'json') patched = applyJsonPatch(current, patchBody);
    else if (patchType === 'merge') patched = applyMergePatch(current, patchBody);
    else patched = applyStrategicMergePatch(current, patchBody);
    if (!isJsonObject(patched)) throw badRequest('the patched object is not a JSON object');
    const patchedObject = this.decode(type, version, patched, namespace);
    const requested = patchedObject.metadata.resourceVersion;
    if (requested !== undefined && requested !== '' && requested !== existing.metadata.resourceVersion) throw conflict(type, name, optimisticLockMessage);
    if (patchedObject.metadata.name !== name) throw badRequest(`the name of the object (${patchedObject.metadata.name ?? ''}) does not match the name on the URL (${name})`);
    return this.write(type, version, existing, patchedObject, options, undefined);
  }

  private apply(
    type: ResourceType,
    version: string,
    namespace: string | undefined,
    name: string,
    existing: KubeObject | undefined,
    patchBody: unknown,
    options: WriteOptions & { subresource?: string; force?: boolean },
  ): KubeObject {
    if (!isJsonObject(patchBody)) throw badRequest('error decoding YAML: the applied configuration must be an object');
    const applied = this.decode(type, version, patchBody, namespace);
    if (applied.metadata.name !== undefined && applied.metadata.name !== name) {
      throw badRequest(`the name of the object (${applied.metadata.name}) does not match the name on the URL (${name})`);
    }
    applied.metadata.name = name;
    if (!options.fieldManager) throw badRequest('PATCH, application/apply-patch+yaml requires fieldManager to be set');
    if (type.statusSubresource && options.subresource !== statusSubresource) delete applied['status'];
    const requested = applied.metadata.resourceVersion;
    if (existing && requested !== undefined && requested !== existing.metadata.resourceVersion) throw conflict(type, name, optimisticLockMessage);
    const live = existing ? this.toVersion(type, existing, version) : undefined;
    const merged = serverSideApply({
      live,
      applied,
      manager: options.fieldManager,
      force: options.force === true,
      apiVersion: groupVersion(type.group, version),
      listKeys: this.listKeys(type),
      ...(options.subresource !== undefined ? { subresource: options.subresource } : {}),
    });
    if (!existing) {
      if (options.subresource !== undefined) throw notFound(type, name);
      return this.create(type, version, namespace, merged, options);
    }
    return this.write(type, version, existing, merged, options, merged.metadata.managedFields ?? []);
  }

  // ---- scale subresource ----

  /** The autoscaling/v1 Scale of an object (GET …/scale). */
  getScale(type: ResourceType, namespace: string | undefined, name: string): KubeObject {
    return scaleOf(this.scaleSubresource(type), this.get(type, namespace, name));
  }

  /** Sets the desired replicas from a Scale (PUT …/scale): 409 on a stale resourceVersion, 422 below zero. */
  updateScale(type: ResourceType, version: string, namespace: string | undefined, name: string, body: unknown, options: WriteOptions = {}): KubeObject {
    const scale = this.scaleSubresource(type);
    const existing = this.get(type, namespace, name);
    if (!isJsonObject(body)) throw badRequest('the body of the request was in an unknown format - expected a Scale object');
    if (body['kind'] !== undefined && body['kind'] !== 'Scale') {
      throw badRequest(`Scale in version "v1" cannot be handled as a Scale: the kind in the data (${String(body['kind'])}) does not match the expected kind (Scale)`);
    }
    if (body['apiVersion'] !== undefined && body['apiVersion'] !== scaleApiVersion) {
      throw badRequest(`the API version in the data (${String(body['apiVersion'])}) does not match the expected API version (${scaleApiVersion})`);
    }
    const metadata = isJsonObject(body['metadata']) ? body['metadata'] : {};
    if (metadata['name'] !== undefined && metadata['name'] !== '' && metadata['name'] !== name) {
      throw badRequest(`the name of the object (${String(metadata['name'])}) does not match the name on the URL (${name})`);
    }
    const resourceVersion = metadata['resourceVersion'];
    if (typeof resourceVersion === 'string' && resourceVersion !== '' && resourceVersion !== existing.metadata.resourceVersion) throw conflict(type, name, optimisticLockMessage);
    const { replicas, problems } = requestedReplicas(body as KubeObject);
    if (problems.length > 0) throw invalid({ group: 'autoscaling', plural: 'scales' }, 'Scale.autoscaling', name, problems);
    const next = withReplicas(scale, this.toVersion(type, existing, version), replicas);
    return scaleOf(scale, this.write(type, version, existing, next, { ...options, subresource: 'scale' }, undefined));
  }

  /** Patches the Scale (PATCH …/scale) and writes the replicas it ends up with. */
  patchScale(type: ResourceType, version: string, namespace: string | undefined, name: string, patchType: PatchType, patchBody: unknown, options: WriteOptions = {}): KubeObject {
    const current = this.getScale(type, namespace, name);
    let patched: unknown;
    if (patchType === 'json') patched = applyJsonPatch(current, patchBody);
    else if (patchType === 'merge') patched = applyMergePatch(current, patchBody);
    else if (patchType === 'strategic') patched = applyStrategicMergePatch(current, patchBody);
    else {
      // Server-side apply of a Scale only ever sets spec.replicas; no field ownership is tracked for it.
      if (!options.fieldManager) throw badRequest('PATCH, application/apply-patch+yaml requires fieldManager to be set');
      patched = applyMergePatch(current, isJsonObject(patchBody) ? { spec: patchBody['spec'] } : patchBody);
    }
    return this.updateScale(type, version, namespace, name, patched, options);
  }

  private scaleSubresource(type: ResourceType): ScaleSubresource {
    if (!type.scale) throw pathNotFound();
    return type.scale;
  }

  /** The shared tail of update and patch: strategy, admission, generation, commit or finalize. */
  private write(
    type: ResourceType,
    version: string,
    existing: KubeObject,
    incoming: KubeObject,
    options: WriteOptions & { subresource?: string },
    managedFields: KubeObject['metadata']['managedFields'] | undefined,
  ): KubeObject {
    const name = existing.metadata.name ?? '';
    const subresource = options.subresource;
    let next: KubeObject;
    if (subresource === 'finalize') {
      next = deepClone(this.toVersion(type, existing, version));
      const finalizers = isJsonObject(incoming['spec']) ? incoming['spec']['finalizers'] : undefined;
      next['spec'] = { ...(isJsonObject(next['spec']) ? next['spec'] : {}), finalizers: Array.isArray(finalizers) ? finalizers : [] };
    } else if (subresource === statusSubresource) {
      next = { ...deepClone(this.toVersion(type, existing, version)) };
      if (incoming['status'] === undefined) delete next['status'];
      else next['status'] = incoming['status'];
    } else {
      next = incoming;
      if (type.statusSubresource) {
        if (existing['status'] === undefined) delete next['status'];
        else next['status'] = deepClone(existing['status']);
      }
    }
    const isNamespace = type.group === '' && type.plural === 'namespaces';
    if (isNamespace && subresource !== 'finalize') {
      next['spec'] = deepClone(existing['spec']);
    }
    const metadata = next.metadata;
    for (const field of ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation', 'namespace'] as const) {
      if (existing.metadata[field] === undefined) delete metadata[field];
      else (metadata as JsonObject)[field] = existing.metadata[field];
    }
    if (existing.metadata.deletionTimestamp !== undefined) {
      const added = (metadata.finalizers ?? []).filter((finalizer) => !(existing.metadata.finalizers ?? []).includes(finalizer));
      if (added.length > 0) {
        throw invalid(type, qualifiedKind(type), name, [
          {
            field: 'metadata.finalizers',
            reason: 'FieldValueForbidden',
            message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`,
          },
        ]);
      }
    }
    let prepared = this.prepare(type, version, next, false, options, existing);
    const problems = type.crdName === undefined ? immutableFieldProblems(type, existing, prepared) : [];
    if (problems.length > 0) throw invalid(type, qualifiedKind(type), name, problems);
    options.admission?.({ type, object: prepared, previous: existing });
    if (type.tracksGeneration && specChanged(type, existing, prepared)) prepared.metadata.generation = (existing.metadata.generation ?? 0) + 1;
    const previousVersioned = this.toVersion(type, existing, version);
    prepared.metadata.managedFields = sortManagedFields(
      managedFields ??
        recordUpdate({
        previous: previousVersioned,
        next: prepared,
        manager: this.managerName(options),
        apiVersion: groupVersion(type.group, version),
        listKeys: this.listKeys(type),
        ...(subresource !== undefined ? { subresource } : {}),
      }),
    );
    if (prepared.metadata.managedFields.length === 0) delete prepared.metadata.managedFields;
    prepared.metadata.resourceVersion = existing.metadata.resourceVersion;
    prepared = canonicalMetadata(type, prepared);
    const stored = this.toStorage(type, prepared);
    if (sameApartFromVolatile(stored, existing)) return this.toVersion(type, existing, version);
    if (options.dryRun) return prepared;
    const specFinalizers = isNamespace && isJsonObject(stored['spec']) && Array.isArray(stored['spec']['finalizers']) ? stored['spec']['finalizers'] : [];
    if (stored.metadata.deletionTimestamp !== undefined && (stored.metadata.finalizers ?? []).length === 0 && specFinalizers.length === 0) {
      const event = this.store.remove(resourceKey(type), stored);
      return this.toVersion(type, event.object, version);
    }
    this.store.put(resourceKey(type), stored);
    return this.toVersion(type, stored, version);
  }

  // ---- delete ----

  delete(type: ResourceType, namespace: string | undefined, name: string, options: DeleteOptions = {}): DeleteResult {
    const existing = this.tryGet(type, namespace, name);
    if (!existing) throw notFound(type, name);
    if (type.isDeletionForbidden?.(existing)) {
      throw forbidden(`${type.plural} "${name}" is forbidden: this namespace may not be deleted`, { name, kind: type.plural });
    }
    const preconditions = options.preconditions;
    if (preconditions?.uid !== undefined && preconditions.uid !== existing.metadata.uid) {
      throw conflict(type, name, `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${existing.metadata.uid ?? ''}`);
    }
    if (preconditions?.resourceVersion !== undefined && preconditions.resourceVersion !== existing.metadata.resourceVersion) {
      throw conflict(type, name, `Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ResourceVersion in object meta: ${existing.metadata.resourceVersion ?? ''}`);
    }
    const finalizers = [...(existing.metadata.finalizers ?? [])];
    if (options.propagationPolicy === 'Foreground' && !finalizers.includes('foregroundDeletion')) finalizers.push('foregroundDeletion');
    if (options.propagationPolicy === 'Orphan' && !finalizers.includes('orphan')) finalizers.push('orphan');
    const isNamespace = type.group === '' && type.plural === 'namespaces';
    if (finalizers.length === 0 && !isNamespace) {
      if (options.dryRun) return { deleted: true, object: existing };
      const event = this.store.remove(resourceKey(type), existing);
      return { deleted: true, object: event.object };
    }
    let next = deepClone(existing);
    if (next.metadata.deletionTimestamp === undefined) {
      next.metadata.deletionTimestamp = nowTimestamp();
      next.metadata.deletionGracePeriodSeconds = 0;
      if (type.tracksGeneration) next.metadata.generation = (next.metadata.generation ?? 0) + 1;
    }
    if (finalizers.length > 0) next.metadata.finalizers = finalizers;
    if (isNamespace) next['status'] = { ...(isJsonObject(next['status']) ? next['status'] : {}), phase: 'Terminating' };
    next = canonicalObject(type, next);
    if (deepEqual(next, existing)) return { deleted: false, object: existing };
    if (options.dryRun) return { deleted: false, object: next };
    this.store.put(resourceKey(type), next);
    return { deleted: false, object: next };
  }

  deleteCollection(type: ResourceType, namespace: string | undefined, list: ListOptions, options: DeleteOptions = {}): KubeObject[] {
    const { items } = this.list(type, namespace, { ...list, limit: 0, continueToken: null });
    const deleted: KubeObject[] = [];
    for (const item of items) {
      try {
        deleted.push(this.delete(type, item.metadata.namespace, item.metadata.name ?? '', options).object);
      } catch (error) {
        if (!(error instanceof StatusError && error.code === 404)) throw error;
      }
    }
    return deleted;
  }

  /** Removes an object regardless of finalizers (controllers finishing a namespace or CRD). */
  forceRemove(type: ResourceType, object: KubeObject): StoreEvent {
    return this.store.remove(resourceKey(type), object);
  }

  // ---- helpers ----

  managerName(options: WriteOptions): string {
    return options.fieldManager && options.fieldManager !== '' ? options.fieldManager : 'unknown';
  }

  listKeys(type: ResourceType): ListKeys {
    const keys = (path: readonly string[], items: readonly unknown[]): ReturnType<ListKeys> => {
      if (path[0] !== 'metadata' && type.associativeList) return type.associativeList(path);
      return builtinListKind(path[path.length - 1] ?? '', items);
    };
    const isMap = (path: readonly string[]): boolean => {
      const field = path[path.length - 1] ?? '';
      if (field === 'labels' || field === 'annotations') return path[path.length - 2] === 'metadata';
      if (type.mapFields) return type.mapFields(path);
      return builtinMapFields.has(field);
    };
    return Object.assign(keys, { isMap });
  }

  /** Parses a request body into an object of this type, checking apiVersion, kind and namespace. */
  private decode(type: ResourceType, version: string, body: unknown, namespace: string | undefined): KubeObject {
    if (!isJsonObject(body)) throw badRequest(`the body of the request was in an unknown format - expected a ${type.kind} object`);
    const object = deepClone(body) as KubeObject;
    const expectedApiVersion = groupVersion(type.group, version);
    if (object.kind !== undefined && object.kind !== type.kind) {
      throw badRequest(`${type.kind} in version "${version}" cannot be handled as a ${type.kind}: the kind in the data (${String(object.kind)}) does not match the expected kind (${type.kind})`);
    }
    if (object.apiVersion !== undefined && object.apiVersion !== expectedApiVersion) {
      throw badRequest(`the API version in the data (${String(object.apiVersion)}) does not match the expected API version (${expectedApiVersion})`);
    }
    object.apiVersion = expectedApiVersion;
    object.kind = type.kind;
    const decodingError = type.schemas === undefined ? builtinDecodingError(expectedApiVersion, type.kind, object) : undefined;
    if (decodingError !== undefined) throw badRequest(`${type.kind} in version "${version}" cannot be handled as a ${type.kind}: ${decodingError}`);
    if (!isJsonObject(object.metadata)) object.metadata = {};
    const metadata = object.metadata;
    for (const field of ['name', 'generateName', 'namespace', 'resourceVersion'] as const) {
      const value = metadata[field];
      if (value !== undefined && value !== null && typeof value !== 'string') {
        throw badRequest(`${type.kind} in version "${version}" cannot be handled as a ${type.kind}: json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go struct field ObjectMeta.metadata.${field} of type string`);
      }
      if (value === null) delete metadata[field];
    }
    const managed = metadata.managedFields;
    if (managed !== undefined && !(Array.isArray(managed) && managed.every((entry) => isJsonObject(entry) && (entry.fieldsV1 === undefined || isJsonObject(entry.fieldsV1))))) {
      delete metadata.managedFields;
    }
    if (type.namespaced) {
      if (metadata.namespace !== undefined && metadata.namespace !== '' && namespace !== undefined && metadata.namespace !== namespace) {
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      metadata.namespace = namespace ?? metadata.namespace;
      if (!metadata.namespace) throw badRequest('the server could not find the requested resource: a namespace is required');
    } else delete metadata.namespace;
    for (const field of ['labels', 'annotations'] as const) {
      const value = metadata[field];
      if (value !== undefined && value !== null && !isJsonObject(value)) {
        throw badRequest(`${type.kind} in version "${version}" cannot be handled as a ${type.kind}: json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go struct field ObjectMeta.metadata.${field} of type map[string]string`);
      }
      if (value === null) delete metadata[field];
    }
    return object;
  }

  /** Defaults, pruning and validation shared by create and update. */
  private prepare(type: ResourceType, version: string, object: KubeObject, isCreate: boolean, options: WriteOptions & { subresource?: string }, previous?: KubeObject): KubeObject {
    let prepared = object;
    const problems: FieldProblem[] = [];
    const name = prepared.metadata.name ?? '';
    problems.push(...validateObjectName(name, nameRuleFor(type)));
    if (type.schemas !== undefined) {
      const schema = type.schemas.get(version);
      if (schema) {
        const pruned = schema.prune(prepared);
        if (pruned.unknownFields.length > 0) {
          const validation = options.fieldValidation ?? 'Warn';
          if (validation === 'Strict') {
            throw badRequest(`${type.kind} in version "${version}" cannot be handled as a ${type.kind}: strict decoding error: ${pruned.unknownFields.map((field) => `unknown field "${field}"`).join(', ')}`);
          }
          if (validation === 'Warn') for (const field of pruned.unknownFields) options.warnings?.push(`unknown field "${field}"`);
        }
        prepared = schema.applyDefaults(pruned.object);
        for (const error of schema.validate(prepared)) problems.push({ field: error.field, reason: error.type, message: error.message });
      }
    } else {
      applyBuiltinDefaults(type, prepared, isCreate, previous, options.subresource);
      problems.push(...validateBuiltin(type, prepared, options.subresource));
      problems.push(...dataSizeProblems(`${type.group}/${type.plural}`, prepared, this.maxDataBytes));
    }
    problems.push(...validateMetadata(prepared));
    if (problems.length > 0) throw invalid(type, qualifiedKind(type), name, problems);
    return canonicalObject(type, prepared);
  }

  private admitNamespace(type: ResourceType, namespace: string | undefined, name: string): void {
    if (!type.namespaced || namespace === undefined) return;
    const namespaces = this.registry.get('', 'namespaces');
    const object = namespaces ? this.store.get(resourceKey(namespaces), undefined, namespace) : undefined;
    if (!object) throw notFound({ group: '', plural: 'namespaces' }, namespace);
    if (object.metadata.deletionTimestamp !== undefined) {
      throw forbidden(`${type.group === '' ? type.plural : `${type.plural}.${type.group}`} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`, {
        group: type.group,
        kind: type.plural,
        causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }],
      });
    }
  }

  private admitCustomResource(type: ResourceType, verb: string): void {
    const crds = this.registry.get('apiextensions.k8s.io', 'customresourcedefinitions');
    const crd = crds && type.crdName ? this.store.get(resourceKey(crds), undefined, type.crdName) : undefined;
    if (crd?.metadata.deletionTimestamp !== undefined) throw methodNotAllowed(`${verb} not allowed while custom resource definition is terminating`);
  }

  /** A copy with `apiVersion` of the requested version (conversion strategy None). */
  toVersion(type: ResourceType, object: KubeObject, version: string): KubeObject {
    const apiVersion = groupVersion(type.group, version);
    return object.apiVersion === apiVersion ? object : { ...object, apiVersion };
  }

  private toStorage(type: ResourceType, object: KubeObject): KubeObject {
    return this.toVersion(type, object, type.storageVersion);
  }
}
