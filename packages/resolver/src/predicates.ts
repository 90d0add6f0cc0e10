import type { BundlePredicate, ConstraintSubject, GroupVersionKind, Property } from '@olm/core';
import { parseRange, parseVersion, type VersionRange } from '@olm/semver-range';

/**
 * A predicate the resolver can look up in an index instead of testing every bundle:
 * every bundle it accepts provides `gvk`, or belongs to `package`.
 */
export type PredicateIndexHint =
  | { readonly kind: 'gvk'; readonly key: string }
  | { readonly kind: 'package'; readonly name: string };

export interface IndexedPredicate extends BundlePredicate {
  readonly indexHint?: PredicateIndexHint;
}

export function gvkKey(gvk: GroupVersionKind): string {
  return `${gvk.group}/${gvk.version}/${gvk.kind}`;
}

/** Decoded property value: FBC gives objects, but tolerate a JSON string as the gRPC API carries. */
export function propertyValue(property: Property): unknown {
  if (typeof property.value === 'string') {
    try {
      return JSON.parse(property.value) as unknown;
    } catch {
      return property.value;
    }
  }
  return property.value;
}

export function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function stringField(record: Record<string, unknown>, key: string): string {
  const value = record[key];
  return typeof value === 'string' ? value : '';
}

/** The `olm.gvk` properties of a bundle. */
export function providedGvks(properties: readonly Property[]): GroupVersionKind[] {
  const gvks: GroupVersionKind[] = [];
  for (const property of properties) {
    if (property.type !== 'olm.gvk') continue;
    const value = asRecord(propertyValue(property));
    gvks.push({ group: stringField(value, 'group'), version: stringField(value, 'version'), kind: stringField(value, 'kind') });
  }
  return gvks;
}

/** The `olm.package` properties of a bundle: name and version. */
export function packageProperties(properties: readonly Property[]): Array<{ name: string; version: string }> {
  const packages: Array<{ name: string; version: string }> = [];
  for (const property of properties) {
    if (property.type !== 'olm.package') continue;
    const value = asRecord(propertyValue(property));
    packages.push({ name: stringField(value, 'packageName'), version: stringField(value, 'version') });
  }
  return packages;
}

const gvkKeyCache = new WeakMap<readonly Property[], ReadonlySet<string>>();

/** The `olm.gvk` keys of a property list, computed once per list (catalog bundles are immutable). */
export function providedGvkKeys(properties: readonly Property[]): ReadonlySet<string> {
  let keys = gvkKeyCache.get(properties);
  if (!keys) {
    keys = new Set(providedGvks(properties).map(gvkKey));
    gvkKeyCache.set(properties, keys);
  }
  return keys;
}

export function providingApiPredicate(gvk: GroupVersionKind): IndexedPredicate {
  const key = gvkKey(gvk);
  return {
    indexHint: { kind: 'gvk', key },
    test: (subject: ConstraintSubject) => providedGvkKeys(subject.properties).has(key),
    describe: () => `providing an API with group: ${gvk.group}, version: ${gvk.version}, kind: ${gvk.kind}`,
  };
}

export function packageNamePredicate(name: string): IndexedPredicate {
  return {
    indexHint: { kind: 'package', name },
    test: (subject) => packageProperties(subject.properties).some((pkg) => pkg.name === name),
    describe: () => `with package: ${name}`,
  };
}

export function versionInRangePredicate(range: VersionRange, text: string): IndexedPredicate {
  return {
    test: (subject) =>
      packageProperties(subject.properties).some((pkg) => {
        try {
          return range.test(parseVersion(pkg.version));
        } catch {
          return false;
        }
      }),
    describe: () => `with version in range: ${text}`,
  };
}

/** `olm.package.required` and the `package` constraint: the package, at a version in the blang range. */
export function packageRequiredPredicate(name: string, versionRange: string): IndexedPredicate {
  return andPredicate([packageNamePredicate(name), versionInRangePredicate(parseRange(versionRange), versionRange)]);
}

export function labelPredicate(label: string): IndexedPredicate {
  return {
    test: (subject) =>
      subject.properties.some(
        (property) => property.type === 'olm.label' && stringField(asRecord(propertyValue(property)), 'label') === label,
      ),
    describe: () => `with label: ${label}`,
  };
}

// Compound predicates spend one unit of the resolution's budget per child they may test: a wide
// `all`/`any` costs in proportion to its width even when its children are built-in kinds.

export function andPredicate(children: readonly BundlePredicate[]): IndexedPredicate {
  const hint = children.map((child) => (child as IndexedPredicate).indexHint).find((each) => each !== undefined);
  return {
    ...(hint ? { indexHint: hint } : {}),
    test: (subject) => {
      subject.budget?.spend(children.length);
      return children.every((child) => child.test(subject));
    },
    describe: () => children.map((child) => child.describe()).join(' and '),
  };
}

export function orPredicate(children: readonly BundlePredicate[]): IndexedPredicate {
  return {
    test: (subject) => {
      subject.budget?.spend(children.length);
      return children.some((child) => child.test(subject));
    },
    describe: () => children.map((child) => child.describe()).join(' or '),
  };
}

/** NOR: none of the children holds (upstream's `not`). */
export function notPredicate(children: readonly BundlePredicate[]): IndexedPredicate {
  return {
    test: (subject) => {
      subject.budget?.spend(children.length);
      return !children.some((child) => child.test(subject));
    },
    describe: () => children.map((child) => child.describe()).join(' and not '),
  };
}
