import { isSemanticallyEqual, updateStatus } from '@olm/controller-runtime';
import type { CatalogControllerContext } from './controller-context.js';
import { Kinds, nameOf } from './kinds.js';
import type { SubscriptionObject } from './namespace-snapshot.js';
import type { SubscriptionStatus } from './subscription-status.js';

/** A Subscription being synced: the object as read and the status it should get. */
export interface Working {
  readonly object: SubscriptionObject;
  status: SubscriptionStatus;
}

/** Writes the statuses that differ from what was read (semantically), keeping what the server stored. */
export async function writeSubscriptions(context: Pick<CatalogControllerContext, 'client' | 'fieldManager'>, working: Working[]): Promise<void> {
  const client = context.client();
  for (const sub of working) {
    if (isSemanticallyEqual(sub.object.status, sub.status)) continue;
    const stored = await updateStatus<SubscriptionObject>(
      client,
      { ...Kinds.subscription, namespace: sub.object.metadata?.namespace ?? '', name: nameOf(sub.object) },
      (latest) => {
        latest.status = sub.status as SubscriptionObject['status'];
      },
      { fieldManager: context.fieldManager },
    );
    (sub as { object: SubscriptionObject }).object = stored;
    sub.status = stored.status ?? {};
  }
}
