import semver from 'semver';
import { describeError, KernelErrorCodes, OlmError } from './errors.js';
import type { ExtensionPoint, ExtensionValue } from './extension-point.js';
import type { ExtensionReader, Plugin, PluginInstance, Provision } from './plugin.js';
import { consumedPoints, isExtensionPoint, providersByPoint, sortPlugins, type KernelProblem } from './plugin-order.js';

export type { KernelProblem };

export interface BootOptions {
  readonly plugins: readonly Plugin[];
  /** Contributions made by the app itself, as if by a plugin named `app`: services such as the shared kube client. */
  readonly provide?: readonly Provision[];
}

export interface BootedPlugin {
  readonly id: string;
  readonly version: string;
}

export interface Kernel extends ExtensionReader {
  /** The plugins in the order they initialised and started. */
  readonly plugins: readonly BootedPlugin[];
  /** Stops plugins in reverse start order; safe to call twice. */
  stop(): Promise<void>;
}

const APP_PROVIDER = 'app';

interface Contribution {
  readonly providerId: string;
  readonly key?: string;
  readonly value: unknown;
}

interface PointRecord {
  readonly point: ExtensionPoint<unknown>;
  readonly contributions: Contribution[];
}

interface Lifecycle {
  readonly plugin: Plugin;
  readonly instance: PluginInstance;
}

/**
 * Boots plugins in three steps. Checks the wiring (plugins, versions, who provides what each consumes,
 * cycles); initialises every plugin in dependency order, handing each what it consumes; then starts
 * them in that order, rolling back if one fails. Every problem of the first two steps is reported
 * together, before anything starts.
 */
export async function boot(options: BootOptions): Promise<Kernel> {
  const problems: KernelProblem[] = [];
  const plugins = collectUniquePlugins(options.plugins, problems);
  checkDependencies(plugins, problems);
  const points = new Map<string, PointRecord>();
  for (const item of options.provide ?? []) addContribution(points, item.point, APP_PROVIDER, item.contribution, problems);
  const providers = providersByPoint(plugins);
  checkSingleProviders(plugins, points, problems);
  checkConsumedPoints(plugins, providers, points, problems);
  const order = sortPlugins(plugins, providers, problems);
  if (problems.length > 0) throw bootError(problems);

  const lifecycles = await initPlugins(order, points, problems);
  if (problems.length > 0) throw bootError(problems);

  const started: Lifecycle[] = [];
  for (const lifecycle of lifecycles) {
    try {
      await lifecycle.instance.start?.();
    } catch (error) {
      const rollbackErrors = await stopAll(started);
      const rolledBack = started.map((item) => item.plugin.id).reverse();
      const rollbackNote =
        rolledBack.length > 0 ? ` Stopped again, in reverse order: ${rolledBack.join(', ')}.` : '';
      const rollbackFailures =
        rollbackErrors.length > 0 ? ` Rollback also failed: ${rollbackErrors.join('; ')}.` : '';
      throw new OlmError(
        KernelErrorCodes.startFailed,
        `plugin "${lifecycle.plugin.id}" failed to start: ${describeError(error)}.${rollbackNote}${rollbackFailures}`,
        { cause: error, details: { plugin: lifecycle.plugin.id, rolledBack } },
      );
    }
    started.push(lifecycle);
  }

  let stopping: Promise<void> | undefined;
  return {
    ...createReader(points),
    plugins: order.map((plugin) => ({ id: plugin.id, version: plugin.version })),
    stop() {
      stopping ??= stopAll(started).then((errors) => {
        if (errors.length > 0) {
          throw new OlmError(KernelErrorCodes.stopFailed, `some plugins failed to stop: ${errors.join('; ')}`);
        }
      });
      return stopping;
    },
  };
}

function collectUniquePlugins(plugins: readonly Plugin[], problems: KernelProblem[]): Plugin[] {
  const byId = new Map<string, Plugin>();
  for (const plugin of plugins) {
    if (!plugin || typeof plugin.id !== 'string' || plugin.id === '' || typeof plugin.init !== 'function') {
      problems.push({
        code: KernelErrorCodes.invalidPlugin,
        message: `a plugin in the list is not a plugin definition (it needs an id, a version and init()); build plugins with definePlugin()`,
      });
      continue;
    }
    if (!semver.valid(plugin.version)) {
      problems.push({
        code: KernelErrorCodes.invalidPlugin,
        plugin: plugin.id,
        message: `plugin "${plugin.id}" has version "${plugin.version}", which is not a semver version such as 1.2.0`,
      });
    }
    checkPointDeclarations(plugin, problems);
    if (byId.has(plugin.id)) {
      problems.push({
        code: KernelErrorCodes.duplicatePlugin,
        plugin: plugin.id,
        message: `plugin "${plugin.id}" is listed more than once; remove the duplicate from the plugin list`,
      });
      continue;
    }
    byId.set(plugin.id, plugin);
  }
  return [...byId.values()];
}

/** `deps` entries must be points (or `optional(point)`), `provides` entries points. */
function checkPointDeclarations(plugin: Plugin, problems: KernelProblem[]): void {
  const consumed = new Set(consumedPoints(plugin).map((item) => item.name));
  for (const name of Object.keys(plugin.deps ?? {})) {
    if (consumed.has(name)) continue;
    problems.push({
      code: KernelErrorCodes.invalidPlugin,
      plugin: plugin.id,
      message: `plugin "${plugin.id}" consumes "${name}", which is not an extension point; give a point made with create*ExtensionPoint, or optional(point)`,
    });
  }
  for (const [index, point] of (plugin.provides ?? []).entries()) {
    if (isExtensionPoint(point)) continue;
    problems.push({
      code: KernelErrorCodes.invalidPlugin,
      plugin: plugin.id,
      message: `plugin "${plugin.id}" provides[${index}] is not an extension point; list the points its init contributes to`,
    });
  }
}

/** Two plugins (or the app and a plugin) declaring one `single` point: known before anything initialises. */
function checkSingleProviders(plugins: readonly Plugin[], points: ReadonlyMap<string, PointRecord>, problems: KernelProblem[]): void {
  const first = new Map<string, string>();
  for (const [id, record] of points) if (record.point.cardinality === 'single') first.set(id, APP_PROVIDER);
  for (const plugin of plugins) {
    for (const point of new Set(plugin.provides ?? [])) {
      if (!isExtensionPoint(point) || point.cardinality !== 'single') continue;
      const clash = first.get(point.id);
      if (clash === undefined) {
        first.set(point.id, plugin.id);
        continue;
      }
      problems.push({
        code: KernelErrorCodes.duplicateProvider,
        plugin: plugin.id,
        message: `extension point "${point.id}" is provided by both "${clash}" and "${plugin.id}"; boot only one of them`,
      });
    }
  }
}

/** Every required `single` point a plugin consumes has a provider: a plugin that declares it, or the app. */
function checkConsumedPoints(
  plugins: readonly Plugin[],
  providers: ReadonlyMap<string, readonly string[]>,
  points: ReadonlyMap<string, PointRecord>,
  problems: KernelProblem[],
): void {
  for (const plugin of plugins) {
    for (const { name, point, optional } of consumedPoints(plugin)) {
      if (optional || point.cardinality !== 'single' || points.has(point.id)) continue;
      if ((providers.get(point.id) ?? []).some((id) => id !== plugin.id)) continue;
      problems.push(missingExtension(plugin, name, point));
    }
  }
}

function missingExtension(plugin: Plugin, name: string, point: ExtensionPoint<unknown>): KernelProblem {
  const hint = point.hint ? ` Hint: ${point.hint}` : ' Add a plugin that provides it, or provide it in boot({ provide }).';
  return {
    code: KernelErrorCodes.missingExtension,
    plugin: plugin.id,
    message: `plugin "${plugin.id}" consumes extension point "${point.id}" (${point.description}) as "${name}", but nothing provides it.${hint}`,
  };
}

/**
 * Runs each `init` in order with what the plugin consumes, and records its contributions. A plugin
 * whose provider failed is not initialised (the provider's failure is the problem reported).
 */
async function initPlugins(order: readonly Plugin[], points: Map<string, PointRecord>, problems: KernelProblem[]): Promise<Lifecycle[]> {
  const lifecycles: Lifecycle[] = [];
  const failed = new Set<string>();
  for (const plugin of order) {
    const consumed = consumedPoints(plugin);
    const waitsOnFailure =
      Object.keys(plugin.dependsOn ?? {}).some((id) => failed.has(id)) ||
      order.some((other) => failed.has(other.id) && other.id !== plugin.id && consumed.some(({ point }) => other.provides?.some((provided) => provided.id === point.id)));
    if (waitsOnFailure) {
      failed.add(plugin.id);
      continue;
    }
    const deps: Record<string, unknown> = {};
    const missing: KernelProblem[] = [];
    for (const { name, point, optional } of consumed) {
      const others = (points.get(point.id)?.contributions ?? []).filter((item) => item.providerId !== plugin.id);
      if (point.cardinality === 'single') {
        if (others.length === 0 && !optional) missing.push(missingExtension(plugin, name, point));
        deps[name] = others[0]?.value;
      } else {
        deps[name] = point.cardinality === 'keyed' ? new Map(others.map((item) => [item.key!, item.value])) : others.map((item) => item.value);
      }
    }
    if (missing.length > 0) {
      problems.push(...missing);
      failed.add(plugin.id);
      continue;
    }
    try {
      const instance = (await plugin.init(deps as never)) ?? {};
      for (const { point, value } of instance.provide ?? []) {
        if (!isExtensionPoint(point) || !plugin.provides?.some((declared) => declared.id === point.id)) {
          problems.push({
            code: KernelErrorCodes.invalidPlugin,
            plugin: plugin.id,
            message: `plugin "${plugin.id}" contributed to extension point "${isExtensionPoint(point) ? point.id : String(point)}" without declaring it; add the point to its provides`,
          });
          continue;
        }
        addContribution(points, point, plugin.id, value, problems);
      }
      lifecycles.push({ plugin, instance });
    } catch (error) {
      failed.add(plugin.id);
      problems.push({
        code: KernelErrorCodes.initFailed,
        plugin: plugin.id,
        message: `plugin "${plugin.id}" failed while initialising: ${describeError(error)}`,
      });
    }
  }
  return lifecycles;
}

function checkDependencies(plugins: readonly Plugin[], problems: KernelProblem[]): void {
  const byId = new Map(plugins.map((plugin) => [plugin.id, plugin]));
  for (const plugin of plugins) {
    for (const [dependencyId, range] of Object.entries(plugin.dependsOn ?? {})) {
      const dependency = byId.get(dependencyId);
      if (!dependency) {
        problems.push({
          code: KernelErrorCodes.missingDependency,
          plugin: plugin.id,
          message: `plugin "${plugin.id}" depends on "${dependencyId}" (${range}), which is not in the plugin list; add it`,
        });
      } else if (!semver.validRange(range)) {
        problems.push({
          code: KernelErrorCodes.invalidPlugin,
          plugin: plugin.id,
          message: `plugin "${plugin.id}" depends on "${dependencyId}" with "${range}", which is not a semver range; use one such as ^1.2.0`,
        });
      } else if (semver.valid(dependency.version) && !semver.satisfies(dependency.version, range)) {
        problems.push({
          code: KernelErrorCodes.versionMismatch,
          plugin: plugin.id,
          message: `plugin "${plugin.id}" needs "${dependencyId}" ${range}, but version ${dependency.version} is installed; install a matching version`,
        });
      }
    }
  }
}

function addContribution(
  points: Map<string, PointRecord>,
  point: ExtensionPoint<unknown>,
  providerId: string,
  value: unknown,
  problems: KernelProblem[],
): void {
  let record = points.get(point.id);
  if (!record) {
    record = { point, contributions: [] };
    points.set(point.id, record);
  }
  const key = point.cardinality === 'keyed' ? readKey(point, value, providerId, problems) : undefined;
  if (point.cardinality === 'keyed' && key === undefined) return;

  const clash = record.contributions.find((existing) =>
    point.cardinality === 'single' ? true : point.cardinality === 'keyed' ? existing.key === key : false,
  );
  if (clash) {
    const what = point.cardinality === 'keyed' ? `key "${key}" of extension point "${point.id}"` : `extension point "${point.id}"`;
    problems.push({
      code: KernelErrorCodes.duplicateProvider,
      plugin: providerId,
      message: `${what} is provided by both "${clash.providerId}" and "${providerId}"; boot only one of them`,
    });
    return;
  }
  record.contributions.push({ providerId, key, value });
}

function readKey(
  point: ExtensionPoint<unknown> & { cardinality: 'keyed' },
  value: unknown,
  providerId: string,
  problems: KernelProblem[],
): string | undefined {
  try {
    const key = point.keyOf(value);
    if (typeof key === 'string' && key !== '') return key;
    problems.push({
      code: KernelErrorCodes.invalidPlugin,
      plugin: providerId,
      message: `"${providerId}" contributed to keyed extension point "${point.id}" without a key`,
    });
  } catch (error) {
    problems.push({
      code: KernelErrorCodes.invalidPlugin,
      plugin: providerId,
      message: `"${providerId}" contributed something extension point "${point.id}" cannot read a key from: ${describeError(error)}`,
    });
  }
  return undefined;
}

function bootError(problems: readonly KernelProblem[]): OlmError {
  const lines = problems.map((problem) => `  - [${problem.code}] ${problem.message}`);
  return new OlmError(
    KernelErrorCodes.bootFailed,
    `boot failed with ${problems.length} problem${problems.length === 1 ? '' : 's'}; nothing was started:\n${lines.join('\n')}`,
    { details: { problems } },
  );
}

function createReader(points: ReadonlyMap<string, PointRecord>): ExtensionReader {
  const contributionsOf = (point: ExtensionPoint<unknown>) => points.get(point.id)?.contributions ?? [];
  const get = (point: ExtensionPoint<unknown>): unknown => {
    const contributions = contributionsOf(point);
    switch (point.cardinality) {
      case 'single':
        if (contributions.length === 0) {
          throw new OlmError(
            KernelErrorCodes.notProvided,
            `extension point "${point.id}" (${point.description}) has no provider.${point.hint ? ` Hint: ${point.hint}` : ''}`,
          );
        }
        return contributions[0]!.value;
      case 'keyed':
        return new Map(contributions.map((item) => [item.key!, item.value]));
      case 'list':
        return contributions.map((item) => item.value);
    }
  };
  return {
    get: get as ExtensionReader['get'],
    find: (point) => contributionsOf(point)[0]?.value as never,
  };
}

async function stopAll(started: readonly Lifecycle[]): Promise<string[]> {
  const errors: string[] = [];
  for (const lifecycle of [...started].reverse()) {
    try {
      await lifecycle.instance.stop?.();
    } catch (error) {
      errors.push(`"${lifecycle.plugin.id}": ${describeError(error)}`);
    }
  }
  return errors;
}

export type { ExtensionValue };
