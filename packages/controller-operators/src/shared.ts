import type { KubeClient } from '@olm/controller-runtime';

/** What the reconcilers of this package share. */
export interface Shared {
  client(): KubeClient;
}
