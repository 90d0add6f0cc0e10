import { type ClusterServiceVersionPhase, CSVMessages, CSVPhases, CSVReasons } from '@olm/api';
import type { InstallStatus } from '@olm/core';
import type { ServingAvailability } from '../serving/api-services.js';

/** Messages OLM writes that `@olm/api` does not list yet, verbatim from upstream. */
export const ServingMessages = {
  /** Failed / APIServiceInstallFailed */
  apiServiceInstallFailed: (detail: string) => `APIService install failed: ${detail}`,
  /** Pending / NeedsCertRotation, from Succeeded */
  certRefreshRequired: 'CSV owns resources that require a cert refresh',
} as const;

/** What an install check found: the strategy's health, and whether the owned APIServices and webhooks serve. */
export interface InstallChecks {
  readonly strategy: InstallStatus;
  readonly apiServices: ServingAvailability;
  readonly webhooks: ServingAvailability;
}

export interface PhaseChange {
  readonly phase: ClusterServiceVersionPhase;
  readonly reason: string;
  readonly message: string;
}

const ready: ServingAvailability = { available: true };

/** Checks of a CSV that owns no APIServices or webhooks. */
export const strategyOnly = (strategy: InstallStatus): InstallChecks => ({ strategy, apiServices: ready, webhooks: ready });

export function isInstalled(checks: InstallChecks): boolean {
  return checks.strategy.healthy && checks.apiServices.available && checks.webhooks.available;
}

/**
 * Upstream `updateInstallStatus`: Succeeded once everything is installed; otherwise, in this order, a
 * busy API server changes nothing (`retry`), an unrecoverable strategy error fails `InstallCheckFailed`,
 * an APIService error fails `APIServiceInstallFailed`, APIServices not yet available and missing webhooks
 * go to the requeue phase, a webhook error back to InstallReady, and a strategy error to InstallReady
 * (the deployment changed or lost the CSV's annotations) or the requeue phase.
 */
export function installOutcome(checks: InstallChecks, requeuePhase: ClusterServiceVersionPhase, requeueReason: string): PhaseChange | 'retry' {
  const { strategy, apiServices, webhooks } = checks;
  if (isInstalled(checks)) return { phase: CSVPhases.Succeeded, reason: CSVReasons.InstallSuccessful, message: CSVMessages.installComplete };
  if (apiServices.retry || webhooks.retry) return 'retry';
  const detail = strategy.message ?? strategy.reason ?? 'unknown';
  if (!strategy.healthy && strategy.unrecoverable) return { phase: CSVPhases.Failed, reason: CSVReasons.InstallCheckFailed, message: CSVMessages.installFailed(detail) };
  if (apiServices.error !== undefined) {
    return { phase: CSVPhases.Failed, reason: CSVReasons.APIServiceInstallFailed, message: ServingMessages.apiServiceInstallFailed(apiServices.error) };
  }
  if (!apiServices.available) return { phase: requeuePhase, reason: requeueReason, message: CSVMessages.apiServicesNotInstalled };
  if (webhooks.error !== undefined) return { phase: CSVPhases.InstallReady, reason: requeueReason, message: CSVMessages.webhookInstallFailed(webhooks.error) };
  if (!webhooks.available) return { phase: requeuePhase, reason: requeueReason, message: CSVMessages.webhooksNotInstalled };
  if (strategy.reason === 'DeploymentUpdated' || strategy.reason === 'AnnotationsMissing') {
    return { phase: CSVPhases.InstallReady, reason: requeueReason, message: CSVMessages.installing(detail) };
  }
  return { phase: requeuePhase, reason: requeueReason, message: CSVMessages.installing(detail) };
}
