import {
  ClusterExtensionConditionTypes as Types,
  ClusterExtensionMessages as Messages,
  ClusterExtensionReasons as Reasons,
  withCondition,
  type BundleMetadata,
  type ClusterExtensionStatus,
  type Condition,
} from '@olm/api';
import type { ModelPackage } from '@olm/registry';

/** Longest condition message, as upstream (Kubernetes' limit); longer ones are cut with upstream's suffix. */
export const maxConditionMessageLength = 32768;
const truncationSuffix = '\n\n... [message truncated]';

/** How a reconcile ended for the Progressing condition: done, or a failure that may pass (Retrying) or needs a change (Blocked). */
export type Progress = { readonly state: 'done' } | { readonly state: 'rolling-out' | 'retrying' | 'blocked'; readonly message: string };

/** The deprecation facts of the catalog's package, or undefined when no catalog data was read. */
export interface DeprecationFacts {
  readonly catalogPackage: ModelPackage | undefined;
  readonly channels: readonly string[];
}

/** One status change of a reconcile, applied to the latest status (so that conflicts can be retried). */
export interface StatusOutcome {
  readonly installed: BundleMetadata | undefined;
  /** What `Installed` True says was installed from (the bundle image, or its name when it has none). */
  readonly installedFrom?: string;
  readonly progress: Progress;
  readonly deprecation: DeprecationFacts;
}

/** Applies `outcome` to a copy of `status` as operator-controller would; conditions keep their transition time while unchanged. */
export function desiredStatus(status: ClusterExtensionStatus | undefined, outcome: StatusOutcome, generation: number, now: string): ClusterExtensionStatus {
  const next: ClusterExtensionStatus = structuredClone(status ?? {});
  const set = (type: string, state: 'True' | 'False' | 'Unknown', reason: string, message = '') => {
    const text = message.length > maxConditionMessageLength ? message.slice(0, maxConditionMessageLength - truncationSuffix.length) + truncationSuffix : message;
    next.conditions = withCondition<Condition>(next.conditions, { type, status: state, reason, message: text, observedGeneration: generation, lastTransitionTime: now });
  };
  if (outcome.installed) {
    next.install = { bundle: { ...outcome.installed } };
    set(Types.installed, 'True', Reasons.succeeded, `Installed bundle ${outcome.installedFrom ?? outcome.installed.name} successfully`);
  } else {
    delete next.install;
    set(Types.installed, 'False', Reasons.failed, Messages.noBundleInstalled);
  }
  const { progress } = outcome;
  if (progress.state === 'done') set(Types.progressing, 'True', Reasons.succeeded, Messages.desiredStateReached);
  else if (progress.state === 'blocked') set(Types.progressing, 'False', Reasons.blocked, progress.message);
  else set(Types.progressing, 'True', progress.state === 'retrying' ? Reasons.retrying : Reasons.rollingOut, progress.message);
  setDeprecations(set, outcome.deprecation, outcome.installed?.name);
  return next;
}

type SetCondition = (type: string, state: 'True' | 'False' | 'Unknown', reason: string, message?: string) => void;

/**
 * Deprecated (the roll-up), PackageDeprecated, ChannelDeprecated (any requested channel) and
 * BundleDeprecated (the installed bundle) from the package's `olm.deprecations`: True/Deprecated with the
 * catalog's messages, False/NotDeprecated, or Unknown/DeprecationStatusUnknown without catalog data;
 * BundleDeprecated is Unknown/Absent while nothing is installed.
 */
function setDeprecations(set: SetCondition, facts: DeprecationFacts, installedBundle: string | undefined): void {
  const catalogPackage = facts.catalogPackage;
  if (!catalogPackage) {
    for (const type of [Types.deprecated, Types.packageDeprecated, Types.channelDeprecated]) set(type, 'Unknown', Reasons.deprecationStatusUnknown);
    if (installedBundle) set(Types.bundleDeprecated, 'Unknown', Reasons.deprecationStatusUnknown);
    else set(Types.bundleDeprecated, 'Unknown', Reasons.absent, 'no bundle installed yet');
    return;
  }
  const packageMessages = catalogPackage.deprecation ? [catalogPackage.deprecation.message] : [];
  const channelMessages = facts.channels.flatMap((name) => catalogPackage.channels.get(name)?.deprecation?.message ?? []);
  const bundleDeprecation = installedBundle ? catalogPackage.bundles.get(installedBundle)?.deprecation : undefined;
  const bundleMessages = bundleDeprecation ? [bundleDeprecation.message] : [];
  const setFrom = (type: string, messages: readonly string[]) =>
    messages.length > 0 ? set(type, 'True', Reasons.deprecated, messages.join('\n')) : set(type, 'False', Reasons.notDeprecated);
  setFrom(Types.deprecated, [...packageMessages, ...channelMessages, ...bundleMessages]);
  setFrom(Types.packageDeprecated, packageMessages);
  setFrom(Types.channelDeprecated, channelMessages);
  if (installedBundle) setFrom(Types.bundleDeprecated, bundleMessages);
  else set(Types.bundleDeprecated, 'Unknown', Reasons.absent, 'no bundle installed yet');
}
