import { installIdentity } from '@olm/api';
import type { KubeClient, ObjectReader } from '@olm/core';
import { Kinds } from '../kinds.js';

/** The client a CSV's install strategy runs with, or why there is none yet. */
export type Installer = { readonly client?: KubeClient } | { readonly unavailable: string };

/**
 * Upstream's `parseStrategiesAndUpdateStatus` attenuation: when the namespace's OperatorGroup names a
 * ServiceAccount, the strategy installs as that account (OLM's client impersonating it, so the API
 * server authorizes each request as the account); otherwise with OLM's client (`client` undefined).
 * While the account is not usable (not synced by the group, or gone) there is no installer: upstream then
 * leaves the CSV as it is, and the group's or the account's next change brings it back.
 */
export function installerFor(olm: KubeClient, cache: ObjectReader, namespace: string): Installer {
  const identity = installIdentity(cache.list(Kinds.operatorGroup, { namespace }));
  if (identity.kind === 'olm') return {};
  if (identity.kind === 'error') return { unavailable: identity.message };
  const { name, namespace: accountNamespace } = identity.reference;
  if (!cache.get(Kinds.serviceAccount, name, accountNamespace)) return { unavailable: `serviceaccounts "${name}" not found` };
  return { client: olm.impersonate({ username: identity.username }) };
}
