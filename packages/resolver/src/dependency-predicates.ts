import { describeError, type BundlePredicate, type ConstraintEvaluator, type Property } from '@olm/core';
import {
  andPredicate,
  asRecord,
  labelPredicate,
  notPredicate,
  orPredicate,
  packageRequiredPredicate,
  propertyValue,
  providingApiPredicate,
  stringField,
} from './predicates.js';

/** Upstream's `2 << 16`: the largest raw `olm.constraint` value accepted, in bytes. */
export const maxConstraintSize = 131072;

/**
 * The deepest an `olm.constraint` value may nest, in JSON levels (objects and arrays; each `all`,
 * `any` or `not` adds three). Upstream has no limit, but 131072 bytes hold 5,000 nested `all`s,
 * which overflow JavaScript's stack wherever a value is walked recursively; real constraints nest
 * two or three compounds.
 */
export const maxConstraintDepth = 200;

/** A constraint nested too deeply: the resolver names the bundle that carries it. */
export class ConstraintTooDeepError extends Error {}

/** Kinds upstream checks, in its order: the first key present wins. Plugin kinds come after. */
const upstreamKindOrder = ['gvk', 'package', 'all', 'any', 'not', 'cel'];

/** Fields upstream's JSON decoder accepts (it rejects any other): per constraint, and per kind's value. */
const constraintFields = new Set(['failureMessage', 'cel', 'package', 'gvk', 'all', 'any', 'not', 'none']);
const valueFields: Readonly<Record<string, ReadonlySet<string>>> = {
  gvk: new Set(['group', 'kind', 'version']),
  package: new Set(['packageName', 'versionRange']),
  cel: new Set(['rule']),
  all: new Set(['constraints']),
  any: new Set(['constraints']),
  not: new Set(['constraints']),
  none: new Set(['constraints']),
};
const compoundKinds = new Set(['all', 'any', 'not', 'none']);

const compoundConstraints = (value: unknown): unknown[] => {
  const constraints = asRecord(value)['constraints'];
  return Array.isArray(constraints) ? constraints : [];
};

/** The built-in `olm.constraint` kinds: `gvk`, `package`, `all`, `any`, `not` (`cel` comes from @olm/plugin-cel). */
export const builtInConstraintEvaluators: readonly ConstraintEvaluator[] = [
  {
    kind: 'gvk',
    compile: (value) => {
      const gvk = asRecord(value);
      return providingApiPredicate({
        group: stringField(gvk, 'group'),
        version: stringField(gvk, 'version'),
        kind: stringField(gvk, 'kind'),
      });
    },
  },
  {
    kind: 'package',
    compile: (value) => {
      const pkg = asRecord(value);
      return packageRequiredPredicate(stringField(pkg, 'packageName'), stringField(pkg, 'versionRange'));
    },
  },
  { kind: 'all', compile: (value, context) => andPredicate(compoundConstraints(value).map((each) => context.compile(each))) },
  { kind: 'any', compile: (value, context) => orPredicate(compoundConstraints(value).map((each) => context.compile(each))) },
  { kind: 'not', compile: (value, context) => notPredicate(compoundConstraints(value).map((each) => context.compile(each))) },
];

/** A bundle's dependency: the predicate candidates must satisfy, and where it came from. */
export interface DependencyPredicate {
  readonly predicate: BundlePredicate;
  readonly property: Property;
  /** `failureMessage`s written in an `olm.constraint` (outermost first). */
  readonly failureMessages: readonly string[];
}

/** Turns a bundle's dependency properties into predicates; other properties are ignored (as upstream). */
export class DependencyCompiler {
  private readonly evaluators: ReadonlyMap<string, ConstraintEvaluator>;
  private readonly kindOrder: readonly string[];
  /** Least recently used first: a long-lived resolver sees catalogs change, so old entries must go. */
  private readonly cache = new Map<string, DependencyPredicate | Error | null>();
  private readonly maxCached: number;

  /** `maxCached`: how many compiled dependencies to keep (default 20 000, several real catalogs' worth). */
  constructor(evaluators: ReadonlyMap<string, ConstraintEvaluator>, maxCached = 20_000) {
    this.evaluators = evaluators;
    this.maxCached = Math.max(1, maxCached);
    const pluginKinds = [...evaluators.keys()].filter((kind) => !upstreamKindOrder.includes(kind)).sort();
    this.kindOrder = [...upstreamKindOrder, ...pluginKinds];
  }

  /** The dependency a property declares, undefined when it declares none; throws upstream's errors. */
  compile(property: Property): DependencyPredicate | undefined {
    if (!isDependencyType(property.type)) return undefined;
    // Before anything walks the value recursively (JSON.stringify included).
    if (typeof property.value === 'object') refuseDeepNesting(property.type, property.value);
    const key = `${property.type}\u0000${typeof property.value === 'string' ? property.value : JSON.stringify(property.value)}`;
    let cached = this.cache.get(key);
    if (cached === undefined) {
      try {
        cached = this.compileUncached(property) ?? null;
      } catch (error) {
        cached = error instanceof Error ? error : new Error(describeError(error));
      }
      if (this.cache.size >= this.maxCached) this.cache.delete(this.cache.keys().next().value!);
    } else {
      this.cache.delete(key);
    }
    this.cache.set(key, cached);
    if (cached instanceof Error) throw cached;
    return cached ?? undefined;
  }

  /** How many compiled dependencies are kept now. */
  get cachedCount(): number {
    return this.cache.size;
  }

  private compileUncached(property: Property): DependencyPredicate | undefined {
    const value = propertyValue(property);
    if (typeof property.value === 'string') refuseDeepNesting(property.type, value);
    switch (property.type) {
      case 'olm.gvk.required': {
        const gvk = asRecord(value);
        const predicate = providingApiPredicate({
          group: stringField(gvk, 'group'),
          version: stringField(gvk, 'version'),
          kind: stringField(gvk, 'kind'),
        });
        return { predicate, property, failureMessages: [] };
      }
      case 'olm.package.required': {
        const pkg = asRecord(value);
        const predicate = packageRequiredPredicate(stringField(pkg, 'packageName'), stringField(pkg, 'versionRange'));
        return { predicate, property, failureMessages: [] };
      }
      case 'olm.label.required':
        return { predicate: labelPredicate(stringField(asRecord(value), 'label')), property, failureMessages: [] };
      case 'olm.constraint':
        return this.compileConstraintProperty(property, value);
      default:
        return undefined;
    }
  }

  private compileConstraintProperty(property: Property, value: unknown): DependencyPredicate {
    const raw = typeof property.value === 'string' ? property.value : JSON.stringify(property.value ?? null);
    if (Buffer.byteLength(raw, 'utf8') > maxConstraintSize) {
      throw new Error(`parse olm.constraint: olm.constraint value is greater than max constraint size ${maxConstraintSize} bytes`);
    }
    try {
      this.checkShape(value);
    } catch (error) {
      throw new Error(`parse olm.constraint: ${describeError(error)}`);
    }
    const failureMessages: string[] = [];
    try {
      const predicate = this.compileConstraint(value, failureMessages);
      return { predicate, property, failureMessages };
    } catch (error) {
      throw new Error(`convert olm.constraint to resolver predicate: ${describeError(error)}`);
    }
  }

  /** Rejects what upstream's strict JSON decoding rejects: non-objects and unknown fields, at any depth. */
  private checkShape(constraint: unknown): void {
    if (typeof constraint !== 'object' || constraint === null || Array.isArray(constraint)) {
      throw new Error(`json: cannot unmarshal ${jsonTypeName(constraint)} into Go value of type constraints.Constraint`);
    }
    for (const [field, fieldValue] of Object.entries(constraint)) {
      if (!constraintFields.has(field) && !this.evaluators.has(field)) throw new Error(`json: unknown field "${field}"`);
      if (field === 'failureMessage' && typeof fieldValue !== 'string') {
        throw new Error(`json: cannot unmarshal ${jsonTypeName(fieldValue)} into Go struct field Constraint.failureMessage of type string`);
      }
      const allowed = valueFields[field];
      if (!allowed || fieldValue === null) continue;
      if (typeof fieldValue !== 'object' || Array.isArray(fieldValue)) {
        throw new Error(`json: cannot unmarshal ${jsonTypeName(fieldValue)} into Go struct field Constraint.${field}`);
      }
      for (const inner of Object.keys(fieldValue)) {
        if (!allowed.has(inner)) throw new Error(`json: unknown field "${inner}"`);
      }
      if (compoundKinds.has(field)) for (const nested of compoundConstraints(fieldValue)) this.checkShape(nested);
    }
  }

  private compileConstraint(constraint: unknown, failureMessages: string[]): BundlePredicate {
    const record = asRecord(constraint);
    const failureMessage = typeof record['failureMessage'] === 'string' ? record['failureMessage'] : undefined;
    if (failureMessage) failureMessages.push(failureMessage);
    const kind = this.kindOrder.find((each) => record[each] !== undefined && record[each] !== null);
    if (kind === undefined) throw new Error('constraint is empty');
    const evaluator = this.evaluators.get(kind);
    if (!evaluator) {
      throw new Error(`no evaluator for constraint kind "${kind}" is booted (for "cel", add @olm/plugin-cel)`);
    }
    return evaluator.compile(record[kind], {
      compile: (nested) => this.compileConstraint(nested, failureMessages),
      ...(failureMessage !== undefined ? { failureMessage } : {}),
    });
  }
}

/** Throws `ConstraintTooDeepError` when `value` nests deeper than `maxConstraintDepth`; walks without recursion. */
function refuseDeepNesting(type: string, value: unknown): void {
  const pending: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (pending.length > 0) {
    const { value: current, depth } = pending.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= maxConstraintDepth) {
      const what = type === 'olm.constraint' ? 'olm.constraint' : `${type} property`;
      throw new ConstraintTooDeepError(
        `parse ${what}: the value nests more than ${maxConstraintDepth} levels deep (each all, any or not adds 3); flatten the constraint`,
      );
    }
    for (const child of Array.isArray(current) ? current : Object.values(current)) pending.push({ value: child, depth: depth + 1 });
  }
}

function isDependencyType(type: string): boolean {
  return type === 'olm.gvk.required' || type === 'olm.package.required' || type === 'olm.label.required' || type === 'olm.constraint';
}

function jsonTypeName(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'object' : typeof value;
}

/**
 * Converts a bundle's legacy `dependencies.yaml` entries into the properties the resolver reads:
 * `olm.gvk` → `olm.gvk.required`, `olm.package` (`version`) → `olm.package.required` (`versionRange`),
 * `olm.label` → `olm.label.required`; `olm.constraint` stays as it is.
 */
export function propertiesFromDependencies(dependencies: ReadonlyArray<{ type: string; value: unknown }>): Property[] {
  const properties: Property[] = [];
  for (const dependency of dependencies) {
    const value = asRecord(dependency.value);
    switch (dependency.type) {
      case 'olm.gvk':
        properties.push({ type: 'olm.gvk.required', value: { group: value['group'], kind: value['kind'], version: value['version'] } });
        break;
      case 'olm.package':
        properties.push({
          type: 'olm.package.required',
          value: { packageName: value['packageName'], versionRange: value['version'] },
        });
        break;
      case 'olm.label':
        properties.push({ type: 'olm.label.required', value: { label: value['label'] } });
        break;
      case 'olm.constraint':
        properties.push({ type: 'olm.constraint', value: dependency.value });
        break;
      default:
        break;
    }
  }
  return properties;
}
