import { readFile } from 'node:fs/promises';
import { dirname, resolve as resolvePath } from 'node:path';
import {
  describeError,
  hasErrorCode,
  type CatalogBundle,
  type CatalogChannel,
  type CatalogContent,
  type CatalogPackage,
  type ChannelEntry,
  type GroupVersionKind,
  type Property,
} from '@olm/core';
import { parse as parseYaml } from 'yaml';
import { propertiesFromDependencies } from './dependency-predicates.js';
import { invalidInput, ResolverErrorCodes } from './errors.js';
import type { AppliedConstraint } from './solver.js';
import type { InstalledOperator, Resolution, ResolveInput, Resolver, ResolverSubscription } from './resolver.js';

/**
 * A what-if resolution, as `olm resolve -f scenario.yaml` reads it: the namespace, the catalogs it
 * sees (a directory `path` relative to the file, or inline FBC blobs under `content`), the operators
 * installed there and the subscriptions.
 */
export interface Scenario {
  readonly file: string;
  readonly namespace: string;
  /** The OperatorGroup's `upgradeStrategy` is `UnsafeFailForward`. */
  readonly failForward: boolean;
  readonly catalogs: readonly ScenarioCatalog[];
  readonly installed: readonly ScenarioInstalled[];
  readonly subscriptions: readonly ResolverSubscription[];
}

export interface ScenarioCatalog {
  readonly name: string;
  readonly namespace: string;
  readonly priority: number;
  /** Absolute directory of a file-based catalog. */
  readonly path?: string;
  /** Inline FBC blobs (`olm.package`, `olm.channel`, `olm.bundle`). */
  readonly content?: readonly unknown[];
}

export interface ScenarioInstalled extends InstalledOperator {
  /** True when `properties` were given in the file (otherwise taken from a catalog bundle of the same name). */
  readonly hasExplicitProperties: boolean;
}

export type CatalogLoader = (directory: string) => Promise<CatalogContent>;

/** Parses a scenario; problems name the file and the field (`OLM_RESOLVER_INVALID_INPUT`). */
export function parseScenario(text: string, file: string): Scenario {
  let document: unknown;
  try {
    document = parseYaml(text, { logLevel: 'error' });
  } catch (error) {
    throw invalidInput(`${file}: not valid YAML: ${describeError(error)}`, { file });
  }
  const reader = new FieldReader(file);
  const root = reader.object(document, '');
  reader.onlyKnown(root, '', scenarioFields);
  const namespace = reader.string(root, 'namespace', '', { required: true });
  const failForward = root['failForward'] ?? false;
  if (typeof failForward !== 'boolean') reader.fail('failForward', 'must be true or false');
  const catalogs = reader.list(root, 'catalogs', '').map((item, position) => {
    const where = `catalogs[${position}]`;
    const catalog = reader.object(item, where);
    reader.onlyKnown(catalog, where, catalogFields);
    const path = reader.optionalString(catalog, 'path', where);
    const content = catalog['content'];
    if ((path === undefined) === (content === undefined)) reader.fail(where, 'give exactly one of "path" or "content"');
    if (content !== undefined && !Array.isArray(content)) reader.fail(`${where}.content`, 'must be a list of FBC blobs');
    const priority = catalog['priority'] ?? 0;
    if (typeof priority !== 'number' || !Number.isInteger(priority)) reader.fail(`${where}.priority`, 'must be an integer');
    return {
      name: reader.string(catalog, 'name', where, { required: true }),
      namespace: reader.string(catalog, 'namespace', where, { required: true }),
      priority: priority as number,
      ...(path !== undefined ? { path: resolvePath(dirname(file), path) } : {}),
      ...(content !== undefined ? { content: content as unknown[] } : {}),
    };
  });
  const installed = reader.list(root, 'installed', '').map((item, position) => {
    const where = `installed[${position}]`;
    const operator = reader.object(item, where);
    reader.onlyKnown(operator, where, installedFields);
    const properties = operator['properties'];
    return {
      name: reader.string(operator, 'name', where, { required: true }),
      hasExplicitProperties: properties !== undefined,
      ...(properties !== undefined ? { properties: reader.properties(properties, `${where}.properties`) } : {}),
      ...optional('replaces', reader.optionalString(operator, 'replaces', where)),
      ...optional('version', reader.optionalString(operator, 'version', where)),
      ...optional('phase', reader.optionalString(operator, 'phase', where)),
      ...optional('providedApis', reader.gvks(operator['providedAPIs'], `${where}.providedAPIs`)),
      ...optional('requiredApis', reader.gvks(operator['requiredAPIs'], `${where}.requiredAPIs`)),
    };
  });
  const subscriptions = reader.list(root, 'subscriptions', '').map((item, position) => {
    const where = `subscriptions[${position}]`;
    const subscription = reader.object(item, where);
    reader.onlyKnown(subscription, where, subscriptionFields);
    return {
      name: reader.string(subscription, 'name', where, { required: true }),
      package: reader.string(subscription, 'package', where, { required: true }),
      channel: reader.string(subscription, 'channel', where, {}),
      source: reader.string(subscription, 'source', where, { required: true }),
      sourceNamespace: reader.string(subscription, 'sourceNamespace', where, { required: true }),
      ...optional('startingCSV', reader.optionalString(subscription, 'startingCSV', where)),
      ...optional('installedCSV', reader.optionalString(subscription, 'installedCSV', where)),
    };
  });
  reader.unique(catalogs.map((catalog) => `${catalog.namespace}/${catalog.name}`), 'catalogs', '', 'catalog');
  reader.unique(installed.map((operator) => operator.name), 'installed', '.name', 'installed operator');
  reader.unique(subscriptions.map((subscription) => subscription.name), 'subscriptions', '.name', 'subscription');
  return { file, namespace, failForward: failForward as boolean, catalogs, installed, subscriptions };
}

// The fields each part of a scenario may have: anything else is most likely a typo that would
// silently change the answer (a misspelt `subscriptions:` resolves nothing).
const scenarioFields = ['namespace', 'failForward', 'catalogs', 'installed', 'subscriptions'];
const catalogFields = ['name', 'namespace', 'priority', 'path', 'content'];
const installedFields = ['name', 'properties', 'providedAPIs', 'requiredAPIs', 'version', 'replaces', 'phase'];
const subscriptionFields = ['name', 'package', 'channel', 'source', 'sourceNamespace', 'startingCSV', 'installedCSV'];

/** Reads a scenario file and its catalogs into resolver input. */
export async function loadScenario(file: string, options: { loadCatalog?: CatalogLoader } = {}): Promise<ResolveInput> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw invalidInput(`${file}: cannot read the scenario: ${describeError(error)}`, { file });
  }
  return scenarioToInput(parseScenario(text, file), options);
}

export async function scenarioToInput(scenario: Scenario, options: { loadCatalog?: CatalogLoader } = {}): Promise<ResolveInput> {
  const catalogs = await Promise.all(
    scenario.catalogs.map(async (catalog, position) => {
      let content: CatalogContent;
      if (catalog.path !== undefined) {
        if (!options.loadCatalog) throw invalidInput(`${scenario.file}: catalogs[${position}].path: no catalog loader is available; give the catalog inline as "content"`);
        try {
          content = await options.loadCatalog(catalog.path);
        } catch (error) {
          throw invalidInput(`${scenario.file}: catalogs[${position}].path: cannot load the catalog at ${catalog.path}: ${describeError(error)}`, { file: scenario.file }, error);
        }
      } else {
        content = catalogFromBlobs(catalog.content ?? [], `${scenario.file}: catalogs[${position}].content`);
      }
      return { name: catalog.name, namespace: catalog.namespace, priority: catalog.priority, content };
    }),
  );
  const installed = scenario.installed.map(({ hasExplicitProperties, ...operator }) => {
    if (hasExplicitProperties || operator.providedApis || operator.requiredApis) return operator;
    for (const catalog of catalogs) {
      for (const pkg of catalog.content.packages.values()) {
        const bundle = pkg.bundles.get(operator.name);
        if (!bundle) continue;
        const replaces = [...pkg.channels.values()].flatMap((channel) => channel.entries).find((entry) => entry.name === bundle.name)?.replaces;
        return {
          ...operator,
          properties: bundle.properties,
          ...(operator.version === undefined ? { version: bundle.version } : {}),
          ...(operator.replaces === undefined && replaces ? { replaces } : {}),
        };
      }
    }
    return { ...operator, properties: [] };
  });
  return {
    namespace: scenario.namespace,
    ...(scenario.failForward ? { failForward: true } : {}),
    catalogs,
    installed,
    subscriptions: scenario.subscriptions,
  };
}

/**
 * Builds catalog content from inline FBC blobs. Test-sized: besides strict FBC it accepts on
 * `olm.bundle` the shorthands `version` (→ `olm.package`), `provides`/`requires` (lists of
 * `{group, version, kind}` → `olm.gvk`/`olm.gvk.required`) and `dependencies` (a legacy
 * `dependencies.yaml` list).
 */
export function catalogFromBlobs(blobs: readonly unknown[], where: string): CatalogContent {
  const reader = new FieldReader(where);
  const packages = new Map<string, { name: string; defaultChannel: string; channels: Map<string, CatalogChannel>; bundles: Map<string, CatalogBundle> }>();
  const packageOf = (name: string) => {
    let pkg = packages.get(name);
    if (!pkg) {
      pkg = { name, defaultChannel: '', channels: new Map(), bundles: new Map() };
      packages.set(name, pkg);
    }
    return pkg;
  };
  blobs.forEach((item, position) => {
    const field = `[${position}]`;
    const blob = reader.object(item, field);
    const schema = reader.string(blob, 'schema', field, { required: true });
    if (schema === 'olm.package') {
      packageOf(reader.string(blob, 'name', field, { required: true })).defaultChannel = reader.string(blob, 'defaultChannel', field, {});
    } else if (schema === 'olm.channel') {
      const packageName = reader.string(blob, 'package', field, { required: true });
      const name = reader.string(blob, 'name', field, { required: true });
      const entries: ChannelEntry[] = reader.list(blob, 'entries', field).map((raw, index) => {
        const entryWhere = `${field}.entries[${index}]`;
        const entry = reader.object(raw, entryWhere);
        const skips = entry['skips'];
        if (skips !== undefined && (!Array.isArray(skips) || skips.some((skip) => typeof skip !== 'string'))) reader.fail(`${entryWhere}.skips`, 'must be a list of names');
        return {
          name: reader.string(entry, 'name', entryWhere, { required: true }),
          ...optional('replaces', reader.optionalString(entry, 'replaces', entryWhere)),
          ...(skips !== undefined ? { skips: skips as string[] } : {}),
          ...optional('skipRange', reader.optionalString(entry, 'skipRange', entryWhere)),
        };
      });
      packageOf(packageName).channels.set(name, { name, package: packageName, entries });
    } else if (schema === 'olm.bundle') {
      const name = reader.string(blob, 'name', field, { required: true });
      const packageName = reader.string(blob, 'package', field, { required: true });
      const properties: Property[] = blob['properties'] === undefined ? [] : reader.properties(blob['properties'], `${field}.properties`);
      const shorthandVersion = reader.optionalString(blob, 'version', field);
      if (shorthandVersion !== undefined && !properties.some((property) => property.type === 'olm.package')) {
        properties.unshift({ type: 'olm.package', value: { packageName, version: shorthandVersion } });
      }
      for (const gvk of reader.gvks(blob['provides'], `${field}.provides`) ?? []) properties.push({ type: 'olm.gvk', value: { ...gvk } });
      for (const gvk of reader.gvks(blob['requires'], `${field}.requires`) ?? []) properties.push({ type: 'olm.gvk.required', value: { ...gvk } });
      if (blob['dependencies'] !== undefined) properties.push(...propertiesFromDependencies(reader.properties(blob['dependencies'], `${field}.dependencies`)));
      const packageProperty = properties.find((property) => property.type === 'olm.package')?.value as { version?: unknown } | undefined;
      const version = typeof packageProperty?.version === 'string' ? packageProperty.version : '';
      packageOf(packageName).bundles.set(name, { name, package: packageName, image: reader.optionalString(blob, 'image', field) ?? '', version, properties });
    }
  });
  const content = new Map<string, CatalogPackage>();
  for (const pkg of packages.values()) content.set(pkg.name, pkg);
  return { packages: content };
}

// ---- output ------------------------------------------------------------------------------------

export type ScenarioOutcome =
  | {
      readonly status: 'Resolved';
      readonly operators: ReadonlyArray<{
        name: string;
        package: string;
        channel: string;
        catalog: { name: string; namespace: string };
        replaces: string | null;
        subscription: { name: string; isNew: boolean } | null;
        existing: boolean;
      }>;
    }
  | { readonly status: 'Unsatisfiable'; readonly message: string; readonly constraints: readonly AppliedConstraint[] }
  | { readonly status: 'Invalid'; readonly message: string };

/** Resolves and shapes the answer as `olm resolve -o json` prints it; other errors are rethrown. */
export function resolveToOutcome(resolver: Resolver, input: ResolveInput): { outcome: ScenarioOutcome; resolution?: Resolution } {
  try {
    const resolution = resolver.resolve(input);
    return {
      resolution,
      outcome: {
        status: 'Resolved',
        operators: resolution.operators.map((operator) => ({
          name: operator.name,
          package: operator.package,
          channel: operator.channel,
          catalog: { name: operator.catalog.name, namespace: operator.catalog.namespace },
          replaces: operator.replaces ?? null,
          subscription: operator.subscription ? { name: operator.subscription.name, isNew: operator.subscription.isNew } : null,
          existing: operator.existing,
        })),
      },
    };
  } catch (error) {
    if (hasErrorCode(error, ResolverErrorCodes.unsatisfiable)) {
      const constraints = (error.details['constraints'] ?? []) as AppliedConstraint[];
      return { outcome: { status: 'Unsatisfiable', message: error.message, constraints } };
    }
    if (hasErrorCode(error, ResolverErrorCodes.invalidInput)) return { outcome: { status: 'Invalid', message: error.message } };
    throw error;
  }
}

/** A human explanation of a resolution: each operator and why it was chosen, or the conflict. */
export function formatOutcomeText(outcome: ScenarioOutcome, resolution?: Resolution): string {
  if (outcome.status === 'Invalid') return `Invalid input: ${outcome.message}\n`;
  if (outcome.status === 'Unsatisfiable') {
    const lines = ['Unsatisfiable: no set of operators meets every constraint. These conflict:'];
    for (const constraint of outcome.constraints) {
      lines.push(`  - ${constraint.message}`);
      for (const message of constraint.failureMessages ?? []) lines.push(`      author's message: ${message}`);
    }
    return `${lines.join('\n')}\n`;
  }
  const lines = [`Resolved: ${outcome.operators.length} operator${outcome.operators.length === 1 ? '' : 's'}`];
  for (const operator of resolution?.operators ?? []) {
    const where = `${operator.catalog.namespace}/${operator.catalog.name}${operator.channel ? `, channel ${operator.channel}` : ''}`;
    const state = operator.existing ? 'keep' : operator.replaces ? `upgrade from ${operator.replaces} to` : 'install';
    lines.push(`  ${state} ${operator.name} (package ${operator.package}, ${where})`);
    if (operator.subscription) {
      lines.push(`    subscription: ${operator.subscription.name}${operator.subscription.isNew ? ' (new, for a dependency)' : ''}`);
    }
    lines.push(`    why: ${operator.reason}`);
  }
  if (resolution) {
    const { stats } = resolution;
    lines.push(`  (${stats.solverCalls} solver calls, ${stats.variables} variables, ${stats.clauses} clauses, ${stats.bundleVariables} candidate bundles)`);
  }
  return `${lines.join('\n')}\n`;
}

// ---- field reading -------------------------------------------------------------------------------

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

class FieldReader {
  constructor(private readonly file: string) {}

  fail(field: string, problem: string): never {
    throw invalidInput(`${this.file}: ${field || '(top level)'}: ${problem}`, { file: this.file, field });
  }

  /** Refuses fields outside `known`, naming the known ones. */
  onlyKnown(record: Record<string, unknown>, where: string, known: readonly string[]): void {
    for (const key of Object.keys(record)) {
      if (!known.includes(key)) this.fail(join(where, key), `unknown field; the known fields are ${known.join(', ')}`);
    }
  }

  /** Refuses a name listed twice in `list`, pointing at the second one. */
  unique(names: readonly string[], list: string, suffix: string, what: string): void {
    const first = new Map<string, number>();
    names.forEach((name, position) => {
      const earlier = first.get(name);
      if (earlier !== undefined) this.fail(`${list}[${position}]${suffix}`, `${what} ${JSON.stringify(name)} is listed twice (also ${list}[${earlier}])`);
      first.set(name, position);
    });
  }

  object(value: unknown, field: string): Record<string, unknown> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) this.fail(field, 'must be a mapping');
    return value as Record<string, unknown>;
  }

  list(record: Record<string, unknown>, key: string, where: string): unknown[] {
    const value = record[key];
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) this.fail(join(where, key), 'must be a list');
    return value as unknown[];
  }

  string(record: Record<string, unknown>, key: string, where: string, options: { required?: boolean }): string {
    const value = record[key];
    if (value === undefined || value === null || value === '') {
      if (options.required) this.fail(join(where, key), 'is required');
      return '';
    }
    if (typeof value !== 'string') this.fail(join(where, key), 'must be a string');
    return value as string;
  }

  optionalString(record: Record<string, unknown>, key: string, where: string): string | undefined {
    const value = record[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') this.fail(join(where, key), 'must be a string');
    return value as string;
  }

  properties(value: unknown, field: string): Property[] {
    if (!Array.isArray(value)) this.fail(field, 'must be a list of {type, value}');
    return (value as unknown[]).map((item, position) => {
      const property = this.object(item, `${field}[${position}]`);
      return { type: this.string(property, 'type', `${field}[${position}]`, { required: true }), value: property['value'] };
    });
  }

  gvks(value: unknown, field: string): GroupVersionKind[] | undefined {
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value)) this.fail(field, 'must be a list of {group, version, kind}');
    return (value as unknown[]).map((item, position) => {
      const where = `${field}[${position}]`;
      const gvk = this.object(item, where);
      return { group: this.string(gvk, 'group', where, {}), version: this.string(gvk, 'version', where, { required: true }), kind: this.string(gvk, 'kind', where, { required: true }) };
    });
  }
}

function join(where: string, key: string): string {
  return where ? `${where}.${key}` : key;
}
