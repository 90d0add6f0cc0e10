import type { KubeClient } from '@olm/core';

/** What the reconcilers of this package share: the client they write with and the clock of status times. */
export interface Shared {
  client(): KubeClient;
  now(): Date;
}
