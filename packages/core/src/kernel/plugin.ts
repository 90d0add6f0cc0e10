import type { ContributionOf, ExtensionPoint, ExtensionValue } from './extension-point.js';

/** Read access to everything the booted plugins and the app provided. */
export interface ExtensionReader {
  /** The contribution(s) to a point. A `single` point nobody provides throws `OLM_KERNEL_NOT_PROVIDED`. */
  get<P extends ExtensionPoint<unknown>>(point: P): ExtensionValue<P>;
  /** A `single` point's provider, or undefined when nobody provides it. */
  find<T>(point: ExtensionPoint<T> & { cardinality: 'single' }): T | undefined;
}

export type StartHook = (extensions: ExtensionReader) => void | Promise<void>;
export type StopHook = () => void | Promise<void>;

/** What a plugin's `register` may do: declare, nothing else. I/O belongs in `onStart`. */
export interface RegisterContext {
  readonly pluginId: string;
  provide<P extends ExtensionPoint<unknown>>(point: P, contribution: ContributionOf<P>): void;
  onStart(hook: StartHook): void;
  onStop(hook: StopHook): void;
}

export interface PluginDefinition {
  /** Unique id; by convention the package folder name (`resolver`, `plugin-cel`). */
  readonly id: string;
  /** The plugin's semver version, checked against other plugins' `dependsOn` ranges. */
  readonly version: string;
  /** Plugins that must boot before this one, with the semver range of versions accepted. */
  readonly dependsOn?: Readonly<Record<string, string>>;
  /** Extension points that must have a provider (from any plugin or the app) for this plugin to work. */
  readonly requires?: readonly ExtensionPoint<unknown>[];
  readonly register: (context: RegisterContext) => void;
}

export type Plugin = Readonly<PluginDefinition>;

/** Declares a plugin. Plugins are plain data: this types and freezes it; `boot()` checks its shape and reports problems. */
export function definePlugin(definition: PluginDefinition): Plugin {
  return Object.freeze({ ...definition });
}

/** A contribution made by the app itself rather than a plugin (kube client, logger, metrics registry). */
export interface Provision<T = unknown> {
  readonly point: ExtensionPoint<T>;
  readonly contribution: T;
}

export function provision<P extends ExtensionPoint<unknown>>(point: P, contribution: ContributionOf<P>): Provision {
  return { point: point as ExtensionPoint<unknown>, contribution };
}
