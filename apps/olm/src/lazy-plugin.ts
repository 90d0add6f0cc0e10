import { OlmError, type Plugin } from '@olm/core';

/**
 * An entry of a distribution's plugin list: the plugin's id and version, and how to import it.
 * Only the commands that boot plugins (`up`, `run`, `resolve`) import them, so `olm --version`,
 * `olm version`, `olm crds` and `olm catalog …` start without loading the controllers and the
 * Kubernetes client. `loadPlugins` checks that each entry loads the plugin it names.
 */
export interface LazyPlugin {
  readonly id: string;
  readonly version: string;
  /**
   * For a controller plugin that upstream runs inside another controller's process: that controller's
   * name (`csv`). It is then not selected by a name of its own but runs whenever that one does.
   */
  readonly runsWith?: string;
  load(): Promise<Plugin>;
}

export function lazyPlugin(id: string, version: string, load: () => Promise<Plugin>, options: { readonly runsWith?: string } = {}): LazyPlugin {
  return { id, version, load, ...(options.runsWith ? { runsWith: options.runsWith } : {}) };
}

function isLazy(entry: LazyPlugin | Plugin): entry is LazyPlugin {
  return typeof (entry as LazyPlugin).load === 'function';
}

/** Imports the listed plugins for `boot()`; plugins given already loaded are kept as they are. */
export async function loadPlugins(list: readonly (LazyPlugin | Plugin)[]): Promise<Plugin[]> {
  const plugins = await Promise.all(list.map((entry) => (isLazy(entry) ? entry.load() : entry)));
  const wrong = list.flatMap((entry, index) => {
    const plugin = plugins[index]!;
    return !isLazy(entry) || (plugin.id === entry.id && plugin.version === entry.version) ? [] : [`"${entry.id}" ${entry.version} loads "${plugin.id}" ${plugin.version}`];
  });
  if (wrong.length > 0) {
    throw new OlmError('OLM_CLI_PLUGIN_LIST', `the plugin list names plugins other than the ones it loads: ${wrong.join('; ')}; correct the id or version in the list (src/plugins.ts)`);
  }
  return plugins;
}
