import { Annotations, CSVMessages, CSVPhases, CSVReasons, ownerReferenceTo, parseTargetNamespaces } from '@olm/api';
import {
  describeError,
  hasErrorCode,
  type InstallContext,
  type InstallStatus,
  type InstallStrategy,
  type KubeClient,
  type ReconcileContext,
  type ReconcileResult,
  type ServingCertificates,
} from '@olm/core';
import { apiServicesAvailability, type ServingAvailability } from '../serving/api-services.js';
import { expectedCaBundles } from '../serving/ca-bundles.js';
import { certsRotateAt } from '../serving/cert-install.js';
import { hasCertResources } from '../serving/cert-resources.js';
import { fail, invalidStrategy, type PhaseWriter, setPhase, type StrategySource, strategyFor } from '../status/csv-phase.js';
import { type InstallChecks, installOutcome, isInstalled, strategyOnly } from './install-outcome.js';
import { Kinds } from '../kinds.js';
import { installerFor } from './scoped-installer.js';
import { readServingSnapshot, type ServingSnapshot } from '../serving/serving-snapshot.js';
import { installServingEndpoints, installServingPrerequisites, servingCertificates } from '../serving/serving-step.js';
import type { Csv } from '../shared.js';

/** What installing a CSV and waiting for it takes: its strategy, the phase writer, and the install timings. */
export interface InstallDependencies extends PhaseWriter, StrategySource {
  /** How long a CSV may stay Installing and unhealthy before it fails. */
  readonly installTimeoutMs: number;
  /** Re-check of an installing CSV's health. */
  readonly healthPollMs: number;
}
import { unknownDeploymentReference } from './strategy-references.js';
import { webhooksAvailability } from '../serving/webhooks.js';

// The InstallReady and Installing rows of the phase switch: run the install strategy, then wait for its health.

/**
 * InstallReady: the serving step's certificates, Services and RBAC, the CSV's strategy, then the
 * APIServices and webhooks pointing at what it runs; as the group's ServiceAccount for scoped installs.
 */
export async function installReady(shared: InstallDependencies, csv: Csv, context: ReconcileContext): Promise<void> {
  const strategy = strategyFor(shared, csv);
  if (!strategy) return invalidStrategy(shared, csv);
  const installer = installerFor(shared.client(), context.cache, csv.metadata.namespace);
  if ('unavailable' in installer) {
    context.logger.warn('failed to get a client for operator deployment', { csv: csv.metadata.name, namespace: csv.metadata.namespace, error: installer.unavailable });
    return;
  }
  const client = installer.client ?? shared.client();
  try {
    const caBundles = await installServingPrerequisites(client, csv, strategy, shared.now());
    await strategy.install(installContext(csv, context, client, servingCertificates(csv, caBundles)));
    await installServingEndpoints(client, csv, caBundles, context.cache);
  } catch (error) {
    // upstream retries every install error except those no retry can fix (invalid strategy, timeout, …).
    const reason = isUnrecoverable(error) ? CSVReasons.ComponentFailedNoRetry : CSVReasons.ComponentFailed;
    await fail(shared, csv, reason, CSVMessages.installStrategyFailed(describeError(error)));
    return;
  }
  const rotateAt = hasCertResources(csv) ? await certsRotateAt(shared.client(), csv) : undefined;
  await setPhase(shared, csv, CSVPhases.Installing, CSVReasons.InstallSuccessful, CSVMessages.waitingForInstallComponents, undefined, rotateAt);
}

/**
 * An install error that retrying cannot fix: one marked `unrecoverable: true` by its install strategy (as
 * `InstallStatus.unrecoverable`), or the deployment strategy's `OLM_CSV_INVALID_STRATEGY`.
 */
function isUnrecoverable(error: unknown): boolean {
  return (typeof error === 'object' && error !== null && (error as { unrecoverable?: unknown }).unrecoverable === true) || hasErrorCode(error, 'OLM_CSV_INVALID_STRATEGY');
}

/** What a strategy gets for one install or health check of the CSV. */
function installContext(csv: Csv, context: ReconcileContext, client: KubeClient, serving: ServingCertificates): InstallContext {
  return {
    csv,
    client,
    cache: context.cache,
    targetNamespaces: parseTargetNamespaces(csv.metadata.annotations?.[Annotations.targetNamespaces]),
    ownerReference: ownerReferenceTo(Kinds.clusterServiceVersion, csv, { controller: false, blockOwnerDeletion: false }),
    serving,
    logger: context.logger.child({ csv: csv.metadata.name, namespace: csv.metadata.namespace, strategy: csv.spec.install.strategy }),
  };
}

/**
 * The CA each serving deployment should carry, or undefined after moving the CSV to
 * `Pending/NeedsReinstall "calculated deployment install is bad"`: an owned APIService or webhook names a
 * deployment the strategy lacks, or what was installed for it is not in the sync's snapshot.
 */
export async function expectedServing(shared: PhaseWriter, csv: Csv, context: ReconcileContext, serving: ServingSnapshot): Promise<ReadonlyMap<string, string> | undefined> {
  let problem = unknownDeploymentReference(csv);
  let caBundles: ReadonlyMap<string, string> = new Map();
  if (!problem && hasCertResources(csv)) {
    try {
      caBundles = expectedCaBundles(csv, serving);
    } catch (error) {
      problem = describeError(error);
    }
  }
  if (!problem) return caBundles;
  context.logger.warn('unable to calculate expected deployment', { csv: csv.metadata.name, problem });
  await setPhase(shared, csv, CSVPhases.Pending, CSVReasons.NeedsReinstall, CSVMessages.calculatedDeploymentBad);
  return undefined;
}

/** The strategy's health, and for a CSV owning APIServices or webhooks whether they serve. */
export async function installChecks(
  shared: InstallDependencies,
  csv: Csv,
  strategy: InstallStrategy,
  context: ReconcileContext,
  serving: ServingSnapshot,
  caBundles: ReadonlyMap<string, string>,
): Promise<InstallChecks> {
  let status: InstallStatus;
  try {
    status = await strategy.checkHealth(installContext(csv, context, shared.client(), servingCertificates(csv, caBundles)));
  } catch (error) {
    status = { healthy: false, reason: 'Unknown', message: describeError(error) };
  }
  if (!hasCertResources(csv)) return strategyOnly(status);
  const checked = async (check: () => Promise<ServingAvailability>): Promise<ServingAvailability> => {
    try {
      return await check();
    } catch (error) {
      return { available: false, error: describeError(error) };
    }
  };
  return {
    strategy: status,
    apiServices: await checked(() => apiServicesAvailability(shared.client(), csv, serving)),
    webhooks: await checked(() => webhooksAvailability(shared.client(), csv, serving)),
  };
}

/** Installing: the install status, or `InstallCheckFailed` once the install timeout has passed. */
export async function installing(shared: InstallDependencies, csv: Csv, context: ReconcileContext): Promise<ReconcileResult | void> {
  const strategy = strategyFor(shared, csv);
  if (!strategy) return invalidStrategy(shared, csv);
  const serving = await readServingSnapshot(shared.client(), csv);
  const caBundles = await expectedServing(shared, csv, context, serving);
  if (!caBundles) return;
  const checks = await installChecks(shared, csv, strategy, context, serving, caBundles);
  const outcome = installOutcome(checks, CSVPhases.Installing, CSVReasons.Waiting);
  if (outcome === 'retry') return { requeueAfter: shared.healthPollMs };
  if (!isInstalled(checks) && outcome.phase === CSVPhases.Installing) {
    // As upstream, only a CSV that stays Installing times out (another outcome is a transition of its own).
    const since = Date.parse(csv.status?.lastTransitionTime ?? '');
    const elapsed = Number.isNaN(since) ? 0 : shared.now().getTime() - since;
    if (elapsed >= shared.installTimeoutMs) {
      await fail(shared, csv, CSVReasons.InstallCheckFailed, CSVMessages.installTimeout);
      return;
    }
    await setPhase(shared, csv, outcome.phase, outcome.reason, outcome.message);
    return { requeueAfter: Math.max(1, Math.min(shared.healthPollMs, shared.installTimeoutMs - elapsed)) };
  }
  await setPhase(shared, csv, outcome.phase, outcome.reason, outcome.message);
  if (!isInstalled(checks)) return { requeueAfter: shared.healthPollMs };
}
