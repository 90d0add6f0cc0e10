import type { CachedObject } from '@olm/core';
import { OlmError } from '@olm/core';
import { RuntimeErrorCodes } from './errors.js';
import type { Selector } from '@olm/label-selector';
import { parseLabelSelector } from './label-selector.js';
import { objectKey } from './object-key.js';

/** Computes the index values of an object (empty when it has none). */
export type IndexFunction = (object: CachedObject) => readonly string[];

export const OLM_OWNER_LABEL = 'olm.owner';
export const OLM_OWNER_NAMESPACE_LABEL = 'olm.owner.namespace';
export const OLM_OWNER_KIND_LABEL = 'olm.owner.kind';

/** Index names every `Indexer` maintains. */
export const BuiltInIndexes = {
  /** `metadata.namespace` ('' for cluster-scoped objects). */
  namespace: 'namespace',
  /** Owners: `Kind/namespace/name` from ownerReferences and from OLM owner labels, and `uid:<uid>` from ownerReferences. */
  owner: 'owner',
  /** Every label as `key=value`. */
  label: 'label',
} as const;

/** The owner index value of an owner, matching both ownerReferences and OLM owner labels. */
export function ownerIndexValue(owner: { readonly kind: string; readonly name: string; readonly namespace?: string }): string {
  return `${owner.kind}/${owner.namespace ?? ''}/${owner.name}`;
}

const namespaceIndex: IndexFunction = (object) => [object.metadata?.namespace ?? ''];

const ownerIndex: IndexFunction = (object) => {
  const values: string[] = [];
  const metadata = object.metadata;
  for (const reference of metadata?.ownerReferences ?? []) {
    // An ownerReference names no namespace: a namespaced owner lives beside its dependent.
    values.push(ownerIndexValue({ kind: reference.kind, name: reference.name, namespace: metadata?.namespace }));
    if (reference.uid) values.push(`uid:${reference.uid}`);
  }
  const labels = metadata?.labels;
  const ownerName = labels?.[OLM_OWNER_LABEL];
  const ownerKind = labels?.[OLM_OWNER_KIND_LABEL];
  if (ownerName && ownerKind) {
    values.push(ownerIndexValue({ kind: ownerKind, name: ownerName, namespace: labels?.[OLM_OWNER_NAMESPACE_LABEL] }));
  }
  return values;
};

const labelIndex: IndexFunction = (object) =>
  Object.entries(object.metadata?.labels ?? {}).map(([key, value]) => `${key}=${value}`);

/**
 * An in-memory store of objects by `namespace/name`, with secondary indexes kept up to date on
 * every change: by namespace, owner and label out of the box, plus custom ones.
 */
export class Indexer<T extends CachedObject = CachedObject> {
  private readonly items = new Map<string, T>();
  private readonly indexFunctions = new Map<string, IndexFunction>();
  private readonly indices = new Map<string, Map<string, Set<string>>>();

  constructor(customIndexes: Readonly<Record<string, IndexFunction>> = {}) {
    this.addIndex(BuiltInIndexes.namespace, namespaceIndex);
    this.addIndex(BuiltInIndexes.owner, ownerIndex);
    this.addIndex(BuiltInIndexes.label, labelIndex);
    for (const [name, indexFunction] of Object.entries(customIndexes)) this.addIndex(name, indexFunction);
  }

  get size(): number {
    return this.items.size;
  }

  /** Adds an index; objects already stored are indexed at once. */
  addIndex(name: string, indexFunction: IndexFunction): void {
    if (this.indexFunctions.has(name)) {
      throw new OlmError(RuntimeErrorCodes.invalidArgument, `index "${name}" already exists; pick another name`);
    }
    this.indexFunctions.set(name, indexFunction);
    const index = new Map<string, Set<string>>();
    this.indices.set(name, index);
    for (const [key, object] of this.items) this.addToIndex(index, indexFunction, key, object);
  }

  hasIndex(name: string): boolean {
    return this.indexFunctions.has(name);
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  keys(): IterableIterator<string> {
    return this.items.keys();
  }

  values(): IterableIterator<T> {
    return this.items.values();
  }

  /** Stores the object and returns the one it replaced. */
  upsert(object: T): T | undefined {
    const key = objectKey(object);
    const previous = this.items.get(key);
    if (previous) this.unindex(key, previous);
    this.items.set(key, object);
    for (const [name, indexFunction] of this.indexFunctions) {
      this.addToIndex(this.indices.get(name)!, indexFunction, key, object);
    }
    return previous;
  }

  delete(key: string): T | undefined {
    const previous = this.items.get(key);
    if (!previous) return undefined;
    this.unindex(key, previous);
    this.items.delete(key);
    return previous;
  }

  /** Objects whose index `name` has `value`. */
  byIndex(name: string, value: string): T[] {
    const keys = this.indexOf(name).get(value);
    if (!keys) return [];
    const result: T[] = [];
    for (const key of keys) result.push(this.items.get(key)!);
    return result;
  }

  /** The distinct values index `name` currently holds. */
  indexValues(name: string): string[] {
    return [...this.indexOf(name).keys()];
  }

  /** Objects in a namespace (or all), matching a label selector (or all). */
  list(options: { readonly namespace?: string; readonly labelSelector?: string } = {}): T[] {
    const selector = options.labelSelector ? parsedSelector(options.labelSelector) : undefined;
    // Narrowed by an index when the selector or namespace allows (keys only: no copy of the candidates).
    let keys: Iterable<string> | undefined;
    const firstEquality = selector?.equalities[0];
    if (firstEquality) {
      keys = this.indexOf(BuiltInIndexes.label).get(`${firstEquality[0]}=${firstEquality[1]}`) ?? [];
    } else if (options.namespace !== undefined) {
      keys = this.indexOf(BuiltInIndexes.namespace).get(options.namespace) ?? [];
    } else {
      const absent = selector?.requirements.find((requirement) => requirement.operator === '!');
      if (absent) keys = this.keysWithoutLabel(absent.key);
    }
    // A selector of one requirement the index answered (`a=b`, `!a`) needs no matching per object: tens of
    // thousands of copied CSVs are listed by `olm.copiedFrom=<namespace>`.
    const matchNeeded = selector !== undefined && !(keys !== undefined && selector.requirements.length === 1 && (firstEquality || options.namespace === undefined));
    const result: T[] = [];
    const consider = (object: T) => {
      if (options.namespace !== undefined && (object.metadata?.namespace ?? '') !== options.namespace) return;
      if (matchNeeded && !selector.matches(object.metadata?.labels)) return;
      result.push(object);
    };
    if (keys) for (const key of keys) consider(this.items.get(key)!);
    else for (const object of this.items.values()) consider(object);
    return result;
  }

  /**
   * Keys of the objects without the label, from an index made on the first such query and kept up to date
   * after: `!olm.copiedFrom` finds the few CSVs that are not copies among tens of thousands without a scan.
   */
  private keysWithoutLabel(key: string): Iterable<string> {
    const name = `${withoutLabelIndexPrefix}${key}`;
    if (!this.hasIndex(name)) this.addIndex(name, (object) => (object.metadata?.labels?.[key] === undefined ? [''] : []));
    return this.indexOf(name).get('') ?? [];
  }

  private indexOf(name: string): Map<string, Set<string>> {
    const index = this.indices.get(name);
    if (!index) {
      throw new OlmError(RuntimeErrorCodes.invalidArgument, `no index named "${name}"; add it with addIndex() first`, {
        details: { index: name, known: [...this.indices.keys()] },
      });
    }
    return index;
  }

  private addToIndex(index: Map<string, Set<string>>, indexFunction: IndexFunction, key: string, object: T): void {
    for (const value of safeIndexValues(indexFunction, object)) {
      let keys = index.get(value);
      if (!keys) index.set(value, (keys = new Set()));
      keys.add(key);
    }
  }

  private unindex(key: string, object: T): void {
    for (const [name, indexFunction] of this.indexFunctions) {
      const index = this.indices.get(name)!;
      for (const value of safeIndexValues(indexFunction, object)) {
        const keys = index.get(value);
        if (!keys) continue;
        keys.delete(key);
        if (keys.size === 0) index.delete(value);
      }
    }
  }
}

/** Indexes made for `!key` selectors are named this, then the key. */
const withoutLabelIndexPrefix = 'without-label:';

/** Parsed selectors by text: controllers list with the same few selectors over and over. */
const parsedSelectors = new Map<string, Selector>();
const parsedSelectorsKept = 256;

function parsedSelector(text: string): Selector {
  let selector = parsedSelectors.get(text);
  if (!selector) {
    selector = parseLabelSelector(text);
    if (parsedSelectors.size >= parsedSelectorsKept) parsedSelectors.delete(parsedSelectors.keys().next().value!);
    parsedSelectors.set(text, selector);
  }
  return selector;
}

/** A custom index function that throws on one odd object must not break the cache for all others. */
function safeIndexValues(indexFunction: IndexFunction, object: CachedObject): readonly string[] {
  try {
    return indexFunction(object);
  } catch {
    return [];
  }
}
