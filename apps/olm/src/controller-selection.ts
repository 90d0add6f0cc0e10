import { usageError } from './cli-errors.js';

/** What selection needs of a plugin, loaded (`Plugin`) or not (`LazyPlugin`, which may run with another controller). */
type Named = { readonly id: string; readonly runsWith?: string };

// Controller plugins are named `controller-<name>` (the folder = plugin id convention);
// controller-runtime runs the others' reconcilers and is not one of them.
const controllerPrefix = 'controller-';
const runtimeId = 'controller-runtime';

function controllerName(plugin: Named): string | undefined {
  if (!plugin.id.startsWith(controllerPrefix) || plugin.id === runtimeId) return undefined;
  return plugin.id.slice(controllerPrefix.length);
}

/**
 * The controllers a plugin list boots, by short name (`csv`, `catalog`), in list order. Controllers
 * that run with another (`runsWith`) are not listed: they come with it.
 */
export function availableControllers(plugins: readonly Named[]): string[] {
  return plugins
    .filter((plugin) => plugin.runsWith === undefined)
    .map(controllerName)
    .filter((name): name is string => name !== undefined);
}

/**
 * The plugin list with only the named controller plugins kept (`olm run --controllers csv`), so one
 * image can run the OLM Operator and the Catalog Operator as separate Deployments. Everything else
 * stays: the kernel needs the shared plugins either way, and so do the controllers that run with a
 * selected one (`runsWith`). An empty selection keeps every controller.
 */
export function selectControllers<T extends Named>(plugins: readonly T[], names: readonly string[]): T[] {
  if (names.length === 0) return [...plugins];
  const available = availableControllers(plugins);
  const unknown = names.filter((name) => !available.includes(name));
  if (unknown.length > 0) {
    throw usageError(
      `--controllers: unknown controller ${unknown.map((name) => `"${name}"`).join(', ')}; this distribution has ${available.map((name) => `"${name}"`).join(', ')} (comma separated, default all)`,
    );
  }
  return plugins.filter((plugin) => {
    const name = controllerName(plugin);
    return name === undefined || names.includes(plugin.runsWith ?? name);
  });
}

/**
 * The leader-election Lease for a controller selection: the default one when every controller runs
 * (`olm up`, a plain `olm run`), else one per set, so that separate Deployments each elect their own
 * leader instead of one process blocking the other.
 */
export function leaseNameFor(defaultName: string, available: readonly string[], selected: readonly string[]): string {
  const chosen = available.filter((name) => selected.includes(name));
  if (selected.length === 0 || chosen.length === available.length) return defaultName;
  return `${defaultName}-${chosen.join('-')}`;
}
