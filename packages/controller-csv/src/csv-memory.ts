import type { GeneratedRbac } from './copies/target-rbac.js';

/**
 * What the CSV reconciler remembers between syncs, per CSV (`namespace/name`), so that most syncs ask
 * the API server nothing; owned by the reconciler, forgotten when the CSV goes.
 */
export class CsvMemory {
  /** CSVs failed `InstallComponentFailedNoRetry` whose RBAC changed since: they get another chance. */
  readonly clusterChanges = new Set<string>();
  /**
   * Per AllNamespaces CSV: whether its `DisabledCopiedCSVs` Event is known to exist (`disabled`) or to be
   * absent, so that Events are listed once per CSV and state, not on every sync.
   */
  readonly copyingDisabledEvents = new Map<string, { readonly uid: string; readonly disabled: boolean }>();
  /** Per CSV with an edited spec: the `uid/generation` whose leftover webhook configurations are gone. */
  readonly webhookCleanups = new Map<string, string>();
  /** Per CSV: the RBAC generated for its target namespaces, and from which object versions. */
  readonly generatedRbac = new Map<string, GeneratedRbac>();

  /** Drops what is remembered of a CSV that is gone. */
  forget(namespace: string, name: string): void {
    const key = `${namespace}/${name}`;
    this.copyingDisabledEvents.delete(key);
    this.webhookCleanups.delete(key);
    this.generatedRbac.delete(key);
  }
}
