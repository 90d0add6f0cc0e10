import semver from 'semver';
import { describeError, KernelErrorCodes, OlmError } from './errors.js';
import type { ExtensionPoint, ExtensionValue } from './extension-point.js';
import type { ExtensionReader, Plugin, Provision, StartHook, StopHook } from './plugin.js';

export interface BootOptions {
  readonly plugins: readonly Plugin[];
  /** Contributions made by the app itself, as if by a plugin named `app`. */
  readonly provide?: readonly Provision[];
}

/** One wiring problem found before anything started. */
export interface KernelProblem {
  readonly code: string;
  readonly message: string;
  readonly plugin?: string;
}

export interface BootedPlugin {
  readonly id: string;
  readonly version: string;
}

export interface Kernel extends ExtensionReader {
  /** The plugins in the order they started. */
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
  readonly startHooks: StartHook[];
  readonly stopHooks: StopHook[];
}

/**
 * Boots plugins: checks the wiring, collecting every problem before anything starts, then starts
 * plugins in dependency order (list order never matters) and rolls back if one fails to start.
 */
export async function boot(options: BootOptions): Promise<Kernel> {
  const problems: KernelProblem[] = [];
  const plugins = collectUniquePlugins(options.plugins, problems);
  checkDependencies(plugins, problems);
  const order = sortByDependencies(plugins, problems);

  const points = new Map<string, PointRecord>();
  for (const item of options.provide ?? []) addContribution(points, item.point, APP_PROVIDER, item.contribution, problems);
  const lifecycles = order.map((plugin) => registerPlugin(plugin, points, problems));
  checkRequiredPoints(order, points, problems);

  if (problems.length > 0) throw bootError(problems);

  const reader = createReader(points);
  const started: Lifecycle[] = [];
  for (const lifecycle of lifecycles) {
    try {
      for (const hook of lifecycle.startHooks) await hook(reader);
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
    ...reader,
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
    if (!plugin || typeof plugin.id !== 'string' || plugin.id === '' || typeof plugin.register !== 'function') {
      problems.push({
        code: KernelErrorCodes.invalidPlugin,
        message: `a plugin in the list is not a plugin definition (it needs an id, a version and register()); build plugins with definePlugin()`,
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

/**
 * Topological order by `dependsOn`, ties broken by id so the list order never matters.
 * Plugins caught in a cycle are reported and then appended (by id) so their registrations
 * can still be checked for other problems.
 */
function sortByDependencies(plugins: readonly Plugin[], problems: KernelProblem[]): Plugin[] {
  const byId = new Map(plugins.map((plugin) => [plugin.id, plugin]));
  const dependenciesOf = (plugin: Plugin) => Object.keys(plugin.dependsOn ?? {}).filter((id) => byId.has(id));
  const remaining = new Map(plugins.map((plugin) => [plugin.id, new Set(dependenciesOf(plugin))]));
  const order: Plugin[] = [];

  for (;;) {
    const ready = [...remaining].filter(([, deps]) => deps.size === 0).map(([id]) => id).sort();
    if (ready.length === 0) break;
    const next = ready[0]!;
    remaining.delete(next);
    for (const deps of remaining.values()) deps.delete(next);
    order.push(byId.get(next)!);
  }

  if (remaining.size > 0) {
    for (const cycle of findCycles([...remaining.keys()].sort(), (id) => dependenciesOf(byId.get(id)!))) {
      problems.push({
        code: KernelErrorCodes.dependencyCycle,
        plugin: cycle[0],
        message: `plugins depend on each other in a cycle: ${cycle.join(' -> ')}; remove one of these dependsOn entries`,
      });
    }
    order.push(...[...remaining.keys()].sort().map((id) => byId.get(id)!));
  }
  return order;
}

/** Each distinct cycle once, starting at its smallest id, e.g. `["a", "b", "a"]`. */
function findCycles(ids: readonly string[], edges: (id: string) => readonly string[]): string[][] {
  const cycles = new Map<string, string[]>();
  const state = new Map<string, 'visiting' | 'done'>();
  const path: string[] = [];
  const visit = (id: string) => {
    state.set(id, 'visiting');
    path.push(id);
    for (const next of [...edges(id)].sort()) {
      if (state.get(next) === 'visiting') {
        const loop = path.slice(path.indexOf(next));
        const start = loop.indexOf([...loop].sort()[0]!);
        const rotated = [...loop.slice(start), ...loop.slice(0, start)];
        cycles.set(rotated.join('\0'), [...rotated, rotated[0]!]);
      } else if (!state.has(next) && ids.includes(next)) {
        visit(next);
      }
    }
    path.pop();
    state.set(id, 'done');
  };
  for (const id of ids) if (!state.has(id)) visit(id);
  return [...cycles.values()];
}

function registerPlugin(plugin: Plugin, points: Map<string, PointRecord>, problems: KernelProblem[]): Lifecycle {
  const lifecycle: Lifecycle = { plugin, startHooks: [], stopHooks: [] };
  let open = true;
  const ensureOpen = (what: string) => {
    if (!open) {
      throw new OlmError(
        KernelErrorCodes.registerClosed,
        `plugin "${plugin.id}" called ${what} after register() returned; declare everything inside register()`,
      );
    }
  };
  try {
    plugin.register({
      pluginId: plugin.id,
      provide: (point, contribution) => {
        ensureOpen('provide()');
        addContribution(points, point, plugin.id, contribution, problems);
      },
      onStart: (hook) => {
        ensureOpen('onStart()');
        lifecycle.startHooks.push(hook);
      },
      onStop: (hook) => {
        ensureOpen('onStop()');
        lifecycle.stopHooks.push(hook);
      },
    });
  } catch (error) {
    problems.push({
      code: KernelErrorCodes.registerFailed,
      plugin: plugin.id,
      message: `plugin "${plugin.id}" failed while registering: ${describeError(error)}`,
    });
  } finally {
    open = false;
  }
  return lifecycle;
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

function checkRequiredPoints(order: readonly Plugin[], points: Map<string, PointRecord>, problems: KernelProblem[]): void {
  for (const plugin of order) {
    for (const point of plugin.requires ?? []) {
      if ((points.get(point.id)?.contributions.length ?? 0) > 0) continue;
      const hint = point.hint ? ` Hint: ${point.hint}` : ' Add a plugin that provides it, or provide it in boot({ provide }).';
      problems.push({
        code: KernelErrorCodes.missingExtension,
        plugin: plugin.id,
        message: `plugin "${plugin.id}" requires extension point "${point.id}" (${point.description}), but nothing provides it.${hint}`,
      });
    }
  }
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
    for (const hook of [...lifecycle.stopHooks].reverse()) {
      try {
        await hook();
      } catch (error) {
        errors.push(`"${lifecycle.plugin.id}": ${describeError(error)}`);
      }
    }
  }
  return errors;
}

export type { ExtensionValue };
