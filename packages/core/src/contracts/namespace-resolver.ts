import { createSingleExtensionPoint } from '../kernel/extension-point.js';
import type { GroupVersionKind } from './meta.js';
import type { CatalogContent, CatalogRef, Property } from './model.js';

/** A catalog visible to the namespace being resolved (a CatalogSource and its content). */
export interface ResolverCatalog {
  readonly name: string;
  readonly namespace: string;
  /** Higher is preferred for dependencies; default 0. */
  readonly priority?: number;
  readonly content: CatalogContent;
}

/** An operator (CSV) already installed in the namespace: the virtual `@existing` catalog. */
export interface InstalledOperator {
  readonly name: string;
  /** From the CSV's `operatorframework.io/properties` annotation; inferred when absent. */
  readonly properties?: readonly Property[];
  /** Used when `properties` is absent: the CSV's owned APIs (→ `olm.gvk`). */
  readonly providedApis?: readonly GroupVersionKind[];
  /** Used when `properties` is absent: the CSV's required APIs (→ `olm.gvk.required`). */
  readonly requiredApis?: readonly GroupVersionKind[];
  readonly version?: string;
  readonly replaces?: string;
  readonly phase?: string;
}

export interface ResolverSubscription {
  readonly name: string;
  readonly package: string;
  /** Empty or absent: every channel. */
  readonly channel?: string;
  readonly source: string;
  readonly sourceNamespace: string;
  readonly startingCSV?: string;
  /** `status.installedCSV`: the operator this subscription installed. */
  readonly installedCSV?: string;
  /**
   * A version pin (a blang range such as `>=1.1.0 <1.3.0`, or one version): bundles outside it are never
   * chosen for this Subscription; the newest one it keeps out is reported in `withheldUpdates`.
   */
  readonly versionRange?: string;
}

export interface ResolveInput {
  readonly namespace: string;
  /**
   * The OperatorGroup's `upgradeStrategy: UnsafeFailForward`: installed CSVs in phase `Replacing`
   * whose replacement chain ends in a `Failed` CSV are left out, so the failed one can be updated.
   */
  readonly failForward?: boolean;
  /**
   * What an unsatisfiable resolution fails. `namespace` (upstream's, the default): every Subscription.
   * `subscription`: only the Subscriptions in the conflict, each in `failedSubscriptions` with its own
   * explanation; the rest are resolved without them, so one broken Subscription does not block the
   * namespace.
   */
  readonly failureScope?: 'namespace' | 'subscription';
  readonly catalogs: readonly ResolverCatalog[];
  readonly installed?: readonly InstalledOperator[];
  readonly subscriptions?: readonly ResolverSubscription[];
}

export interface ResolvedOperator {
  /** The bundle (CSV) name. */
  readonly name: string;
  readonly package: string;
  readonly channel: string;
  readonly version: string;
  readonly catalog: CatalogRef;
  /** The installed CSV this bundle replaces. */
  readonly replaces?: string;
  /** The subscription it satisfies; `isNew` when the controller must create it for a new dependency. */
  readonly subscription?: { readonly name: string; readonly isNew: boolean };
  /** True for an installed operator kept as it is. */
  readonly existing: boolean;
  /** Why it is in the result, in a sentence. */
  readonly reason: string;
}

/** A Subscription left out of a `failureScope: 'subscription'` resolution, and why. */
export interface FailedSubscription {
  readonly name: string;
  /** The error code, as a whole-namespace failure would have thrown it (`OLM_RESOLVER_UNSATISFIABLE`). */
  readonly code: string;
  /** The explanation: the conflict this Subscription is part of. */
  readonly message: string;
}

/** A newer bundle a Subscription's `versionRange` keeps out. */
export interface WithheldUpdate {
  readonly subscription: string;
  readonly versionRange: string;
  /** The newest bundle (name, version) that would have been a candidate without the pin. */
  readonly bundle: { readonly name: string; readonly version: string };
}

/** A namespace's resolution; `stats` are the resolver's own (for benches and logs, never for decisions). */
export interface NamespaceResolution<Stats = unknown> {
  readonly status: 'Resolved';
  readonly operators: readonly ResolvedOperator[];
  /** With `failureScope: 'subscription'`: the Subscriptions that could not be resolved (none otherwise). */
  readonly failedSubscriptions?: readonly FailedSubscription[];
  /** Subscriptions whose `versionRange` keeps a newer candidate out (none when no pin holds one back). */
  readonly withheldUpdates?: readonly WithheldUpdate[];
  readonly stats: Stats;
}

export interface SliceOptions {
  /** How long the resolution runs before it gives the event loop a turn; default 20 ms. */
  readonly sliceMs?: number;
  /** Stops the resolution at its next pause; the promise then rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/**
 * Resolves the operators of one namespace from its catalogs, installed operators and Subscriptions.
 * Failures are `OlmError`s with stable codes the controllers act on: `OLM_RESOLVER_UNSATISFIABLE`
 * (the explanation is the message; `details.subscriptionMessages` may hold, per Subscription name, the
 * message its condition should carry), `OLM_RESOLVER_INVALID_INPUT`, `OLM_RESOLVER_BUDGET_EXHAUSTED`.
 */
export interface NamespaceResolver {
  /** Resolves a namespace at once (a CLI, a test). */
  resolve(input: ResolveInput): NamespaceResolution;
  /**
   * The same resolution, in slices of about `sliceMs` that give the event loop a turn between them,
   * so that a long resolution does not starve a server or other work in the process (a controller).
   */
  resolveInSlices(input: ResolveInput, options?: SliceOptions): Promise<NamespaceResolution>;
}

export const namespaceResolver = createSingleExtensionPoint<NamespaceResolver>({
  id: 'olm.namespaceResolver',
  description: 'the dependency resolver namespaces are resolved with',
  hint: "boot a resolver plugin such as @olm/resolver's resolverPlugin",
});
