import { updateStatus } from '@olm/controller-runtime';
import type { SubscriptionDeps } from './subscription-deps.js';
import { Kinds, nameOf } from '../kinds.js';
import type { LiveSubscription } from '../resolution/namespace-snapshot.js';
import { ownPartDiffers, withOwnPart } from './subscription-ownership.js';
import type { SubscriptionStatus } from './subscription-status.js';

/** A Subscription being synced: the object as read and the status it should get. */
export interface Working {
  /** Replaced by what the write stored. */
  object: LiveSubscription;
  status: SubscriptionStatus;
}

/**
 * Writes the namespace pass's part of the statuses that differ from what was read (semantically), on the latest
 * object: catalog health and the InstallPlan conditions are the `subscription` reconciler's, left as stored.
 * Afterwards each status is the pass's part over what was stored, so later steps compare like with like.
 */
export async function writeSubscriptions(context: Pick<SubscriptionDeps, 'client' | 'fieldManager'>, working: Working[]): Promise<void> {
  const client = context.client();
  for (const sub of working) {
    if (!ownPartDiffers(sub.object.status, sub.status, 'namespace')) {
      sub.status = sub.object.status ?? {};
      continue;
    }
    const desired = sub.status;
    const stored = await updateStatus<LiveSubscription>(
      client,
      { ...Kinds.subscription, namespace: sub.object.metadata?.namespace ?? '', name: nameOf(sub.object) },
      (latest) => {
        latest.status = withOwnPart(latest.status, desired, 'namespace');
      },
      { fieldManager: context.fieldManager },
    );
    sub.object = stored;
    sub.status = stored.status ?? {};
  }
}
