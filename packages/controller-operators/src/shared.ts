import type { KubeClient } from '@olm/core';

/** What the reconcilers of this package share. */
export interface Shared {
  client(): KubeClient;
}
