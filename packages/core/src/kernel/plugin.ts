import type { ContributionOf, ExtensionPoint, ExtensionValue } from './extension-point.js';

/** Read access to everything the booted plugins and the app provided. */
export interface ExtensionReader {
  /** The contribution(s) to a point. A `single` point nobody provides throws `OLM_KERNEL_NOT_PROVIDED`. */
  get<P extends ExtensionPoint<unknown>>(point: P): ExtensionValue<P>;
  /** A `single` point's provider, or undefined when nobody provides it. */
  find<T>(point: ExtensionPoint<T> & { cardinality: 'single' }): T | undefined;
}

/** A dependency on a `single` point that may have no provider: `init` then gets `undefined`. */
export interface OptionalDependency<P extends ExtensionPoint<unknown> = ExtensionPoint<unknown>> {
  readonly optional: P;
}

export function optional<P extends ExtensionPoint<unknown> & { cardinality: 'single' }>(point: P): OptionalDependency<P> {
  return Object.freeze({ optional: point });
}

/** What a plugin consumes, by the name `init` receives it under. */
export type Dependencies = Readonly<Record<string, ExtensionPoint<unknown> | OptionalDependency>>;

/** What `init` receives for each dependency: a single point's value, a keyed point's map, a list point's array. */
export type ResolvedDependencies<D extends Dependencies> = {
  readonly [K in keyof D]: D[K] extends OptionalDependency<infer P> ? ExtensionValue<P> | undefined : ExtensionValue<D[K]>;
};

/** One contribution to a point, as `init` returns it (made with `contribute`). */
export interface Contribution {
  readonly point: ExtensionPoint<unknown>;
  readonly value: unknown;
}

export function contribute<P extends ExtensionPoint<unknown>>(point: P, value: ContributionOf<P>): Contribution {
  return { point: point as ExtensionPoint<unknown>, value };
}

/** What `init` returns: the plugin's contributions and, when it opens anything, how to start and stop it. */
export interface PluginInstance {
  /** Contributions, each to a point named in the plugin's `provides`. */
  readonly provide?: readonly Contribution[];
  /** I/O goes here: run after every plugin initialised, in the same order; a failure stops the started ones again. */
  start?(): void | Promise<void>;
  /** Closes what `start` opened; run in reverse order. */
  stop?(): void | Promise<void>;
}

export interface PluginDefinition<D extends Dependencies = Dependencies> {
  /** Unique id; by convention the package folder name (`resolver`, `plugin-cel`). */
  readonly id: string;
  /** The plugin's semver version, checked against other plugins' `dependsOn` ranges. */
  readonly version: string;
  /** Plugins that must be in the list, with the semver range of versions accepted; they initialise first. */
  readonly dependsOn?: Readonly<Record<string, string>>;
  /**
   * The points this plugin consumes, by the name `init` receives them under. It initialises after every
   * plugin that provides one of them. A `single` point is required (a boot error names it when nobody
   * provides it) unless wrapped in `optional()`; a keyed or list point may have no contribution.
   * A point the plugin provides itself gives the other providers' contributions.
   */
  readonly deps?: D;
  /** The points `init` contributes to: declared up front so that boot knows the order before anything runs. */
  readonly provides?: readonly ExtensionPoint<unknown>[];
  /**
   * Builds the plugin from what it consumes and returns its contributions. No I/O here (`start` is for
   * that): every plugin initialises before any starts, so that boot reports every problem first.
   */
  init(deps: ResolvedDependencies<D>): PluginInstance | void | Promise<PluginInstance | void>;
}

export type Plugin = Readonly<PluginDefinition>;

/** Declares a plugin. Plugins are plain data: this types and freezes it; `boot()` checks its shape and reports problems. */
export function definePlugin<D extends Dependencies = Record<never, never>>(definition: PluginDefinition<D>): Plugin {
  return Object.freeze({ ...definition }) as Plugin;
}

/** A contribution made by the app itself rather than a plugin (the shared kube client, logger, metrics registry). */
export interface Provision<T = unknown> {
  readonly point: ExtensionPoint<T>;
  readonly contribution: T;
}

export function provision<P extends ExtensionPoint<unknown>>(point: P, contribution: ContributionOf<P>): Provision {
  return { point: point as ExtensionPoint<unknown>, contribution };
}
