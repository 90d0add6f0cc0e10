import { KernelErrorCodes } from './errors.js';
import type { ExtensionPoint } from './extension-point.js';
import type { OptionalDependency, Plugin } from './plugin.js';

/** One wiring problem found before anything started. */
export interface KernelProblem {
  readonly code: string;
  readonly message: string;
  readonly plugin?: string;
}

/** A plugin's consumed points: the name `init` receives each under, the point, and whether it may be missing. */
export interface ConsumedPoint {
  readonly name: string;
  readonly point: ExtensionPoint<unknown>;
  readonly optional: boolean;
}

export function isExtensionPoint(value: unknown): value is ExtensionPoint<unknown> {
  const candidate = value as Partial<ExtensionPoint<unknown>> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.id === 'string' &&
    (candidate.cardinality === 'single' || candidate.cardinality === 'keyed' || candidate.cardinality === 'list')
  );
}

/** The points a plugin consumes; entries that are not points are left out (`checkPluginShape` reports them). */
export function consumedPoints(plugin: Plugin): ConsumedPoint[] {
  return Object.entries(plugin.deps ?? {}).flatMap(([name, dependency]): ConsumedPoint[] => {
    const wrapped = (dependency as Partial<OptionalDependency>).optional;
    if (isExtensionPoint(wrapped)) return [{ name, point: wrapped, optional: true }];
    return isExtensionPoint(dependency) ? [{ name, point: dependency, optional: false }] : [];
  });
}

/** Which plugins declare that they provide each point (by point id). */
export function providersByPoint(plugins: readonly Plugin[]): Map<string, string[]> {
  const providers = new Map<string, string[]>();
  for (const plugin of plugins) {
    for (const point of plugin.provides ?? []) {
      if (!isExtensionPoint(point)) continue;
      const ids = providers.get(point.id) ?? [];
      if (!ids.includes(plugin.id)) ids.push(plugin.id);
      providers.set(point.id, ids);
    }
  }
  return providers;
}

/** Why `from` must initialise after `to`, in words, or nothing when it need not. */
function linkReasons(from: Plugin, to: Plugin, providers: ReadonlyMap<string, readonly string[]>): string[] {
  const reasons: string[] = [];
  if (from.dependsOn && Object.hasOwn(from.dependsOn, to.id)) reasons.push(`"${from.id}" dependsOn "${to.id}"`);
  for (const { point } of consumedPoints(from)) {
    if (from.id !== to.id && providers.get(point.id)?.includes(to.id)) {
      reasons.push(`"${from.id}" consumes "${point.id}", which "${to.id}" provides`);
    }
  }
  return [...new Set(reasons)];
}

/**
 * Initialisation order: after every plugin named in `dependsOn` and every other provider of a point
 * consumed; ties broken by id, so the list order never matters. Plugins caught in a cycle are
 * reported (with the link that makes each step) and appended by id so they can still be checked.
 */
export function sortPlugins(plugins: readonly Plugin[], providers: ReadonlyMap<string, readonly string[]>, problems: KernelProblem[]): Plugin[] {
  const byId = new Map(plugins.map((plugin) => [plugin.id, plugin]));
  const edges = new Map(
    plugins.map((plugin) => [plugin.id, plugins.filter((other) => linkReasons(plugin, other, providers).length > 0).map((other) => other.id)]),
  );
  const remaining = new Map([...edges].map(([id, targets]) => [id, new Set(targets)]));
  const order: Plugin[] = [];

  for (;;) {
    const ready = [...remaining].filter(([, targets]) => targets.size === 0).map(([id]) => id).sort();
    if (ready.length === 0) break;
    const next = ready[0]!;
    remaining.delete(next);
    for (const targets of remaining.values()) targets.delete(next);
    order.push(byId.get(next)!);
  }

  if (remaining.size > 0) {
    for (const cycle of findCycles([...remaining.keys()].sort(), (id) => edges.get(id) ?? [])) {
      const links = cycle.slice(1).flatMap((to, index) => linkReasons(byId.get(cycle[index]!)!, byId.get(to)!, providers));
      problems.push({
        code: KernelErrorCodes.dependencyCycle,
        plugin: cycle[0],
        message: `plugins depend on each other in a cycle: ${cycle.join(' -> ')} (${links.join('; ')}); remove one of these dependencies`,
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
