/**
 * An extension point is a typed reference with a cardinality that says how contributions combine:
 * - `single`: exactly one provider (a SAT backend, a kube client); a second provider is a boot error;
 * - `keyed`: one provider per key (property types by `type`); two providers of one key is a boot error;
 * - `list`: any number of providers, in plugin boot order (preflight checks).
 */
export type Cardinality = 'single' | 'keyed' | 'list';

interface ExtensionPointBase<T> {
  readonly id: string;
  readonly description: string;
  /** Told to the user when a required point has no provider: which plugin or option provides it. */
  readonly hint?: string;
  /** Phantom field that carries `T`; never set. */
  readonly __type?: T;
}

export interface SingleExtensionPoint<T> extends ExtensionPointBase<T> {
  readonly cardinality: 'single';
}

export interface KeyedExtensionPoint<T> extends ExtensionPointBase<T> {
  readonly cardinality: 'keyed';
  /** The key a contribution is registered under, read from the contribution itself. */
  keyOf(contribution: T): string;
}

export interface ListExtensionPoint<T> extends ExtensionPointBase<T> {
  readonly cardinality: 'list';
}

export type ExtensionPoint<T> = SingleExtensionPoint<T> | KeyedExtensionPoint<T> | ListExtensionPoint<T>;

/** What `get(point)` returns for each cardinality. */
export type ExtensionValue<P> = P extends SingleExtensionPoint<infer T>
  ? T
  : P extends KeyedExtensionPoint<infer T>
    ? ReadonlyMap<string, T>
    : P extends ListExtensionPoint<infer T>
      ? readonly T[]
      : never;

export type ContributionOf<P> = P extends ExtensionPointBase<infer T> ? T : never;

interface PointOptions {
  id: string;
  description: string;
  hint?: string;
}

export function createSingleExtensionPoint<T>(options: PointOptions): SingleExtensionPoint<T> {
  return Object.freeze({ ...options, cardinality: 'single' as const });
}

export function createKeyedExtensionPoint<T>(
  options: PointOptions & { keyOf: (contribution: T) => string },
): KeyedExtensionPoint<T> {
  return Object.freeze({ ...options, cardinality: 'keyed' as const });
}

export function createListExtensionPoint<T>(options: PointOptions): ListExtensionPoint<T> {
  return Object.freeze({ ...options, cardinality: 'list' as const });
}
