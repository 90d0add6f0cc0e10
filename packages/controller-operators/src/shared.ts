import type { KubeClient } from '@olm/controller-runtime';

/** What the reconcilers of this package share. */
export interface Shared {
  client(): KubeClient;
  /** How often an Operator's components are listed again even if no watched object changed (0: never). */
  readonly refreshIntervalMs: number;
}
