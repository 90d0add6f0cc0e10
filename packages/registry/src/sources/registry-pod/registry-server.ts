import { SecurityContextConfigs } from '@olm/api';
import type { CachedObject, KubeClient } from '@olm/core';
import { isAlreadyExists, isNotFound } from '@olm/controller-runtime';
import { Kinds, type AnyObject, type CatalogSourceObject } from './catalog-source-object.js';
import {
  catalogSourceLabel,
  podSpecHashLabel,
  registryPod,
  registryService,
  registryServiceAccount,
  registryServiceName,
  serviceSpecHashLabel,
  type RegistryPodSettings,
} from './registry-pod.js';

/** The namespace label whose `restricted` value makes `restricted` the registry Pods' default security context. */
const podSecurityEnforceLabel = 'pod-security.kubernetes.io/enforce';

/**
 * Makes the registry Service and exactly one registry Pod of the current spec exist for an image
 * catalog. With `replacePod` (a registry poll is due) the Pod is recreated, pulling the tag again.
 * Returns what changed, for logging.
 */
export async function ensureRegistryServer(
  client: KubeClient,
  source: CatalogSourceObject,
  options: { replacePod: boolean; pod: Omit<RegistryPodSettings, 'defaultSecurityContextConfig'> },
): Promise<string[]> {
  const namespace = source.metadata?.namespace ?? '';
  const name = source.metadata?.name ?? '';
  const changes: string[] = [];

  const account = await ensureServiceAccount(client, source, changes);
  const namespaceObject = await client.find({ ...Kinds.namespace, name: namespace });
  const defaultSecurityContextConfig =
    namespaceObject?.metadata?.labels?.[podSecurityEnforceLabel] === 'restricted' ? SecurityContextConfigs.Restricted : SecurityContextConfigs.Legacy;

  const service = registryService(source);
  const current = await client.find({ ...Kinds.service, namespace, name: service.metadata!.name! });
  if (!current) {
    await createIgnoringConflict(client, service);
    changes.push(`created Service ${namespace}/${service.metadata!.name}`);
  } else if (current.metadata?.labels?.[serviceSpecHashLabel] !== service.metadata!.labels![serviceSpecHashLabel]) {
    // Recreated rather than updated: a Service's clusterIP and other defaulted fields cannot be replaced blindly.
    await deleteIgnoringMissing(client, { ...Kinds.service, namespace, name: service.metadata!.name! });
    await createIgnoringConflict(client, service);
    changes.push(`replaced Service ${namespace}/${service.metadata!.name}`);
  }

  const pod = registryPod(source, account, { ...options.pod, defaultSecurityContextConfig });
  const wanted = pod.metadata!.labels![podSpecHashLabel];
  const pods = (await client.list(Kinds.pod, { namespace, labelSelector: `${catalogSourceLabel}=${name}` })).items;
  const keep = options.replacePod ? undefined : pods.find((candidate) => candidate.metadata?.labels?.[podSpecHashLabel] === wanted && !candidate.metadata?.deletionTimestamp);
  for (const stale of pods) {
    if (stale === keep) continue;
    await deleteIgnoringMissing(client, { ...Kinds.pod, namespace, name: stale.metadata?.name ?? '' });
    changes.push(`deleted Pod ${namespace}/${stale.metadata?.name}`);
  }
  if (!keep) {
    const created = await client.create(pod);
    changes.push(`created Pod ${namespace}/${created.metadata?.name}`);
  }
  return changes;
}

/**
 * The catalog's ServiceAccount, created when missing; its image pull secrets follow `spec.secrets` when
 * the CatalogSource owns it (one a user made is used as it is). Returns what the Pod runs with.
 */
async function ensureServiceAccount(client: KubeClient, source: CatalogSourceObject, changes: string[]): Promise<{ name: string; imagePullSecrets: unknown[] }> {
  const wanted = registryServiceAccount(source);
  const reference = { ...Kinds.serviceAccount, namespace: wanted.metadata!.namespace!, name: wanted.metadata!.name! };
  const current = await client.find<CachedObject & { imagePullSecrets?: Array<{ name?: string }> }>(reference);
  if (!current) {
    await createIgnoringConflict(client, wanted);
    changes.push(`created ServiceAccount ${reference.namespace}/${reference.name}`);
    return { name: reference.name, imagePullSecrets: wanted.imagePullSecrets };
  }
  const owned = current.metadata?.ownerReferences?.some((owner) => owner.uid === source.metadata?.uid);
  const live = (current.imagePullSecrets ?? []).map((entry) => entry.name ?? '');
  const sameSecrets = live.length === wanted.imagePullSecrets.length && wanted.imagePullSecrets.every((entry, index) => entry.name === live[index]);
  if (owned && !sameSecrets) {
    await client.patch(reference, { imagePullSecrets: wanted.imagePullSecrets });
    changes.push(`updated the image pull secrets of ServiceAccount ${reference.namespace}/${reference.name}`);
    return { name: reference.name, imagePullSecrets: wanted.imagePullSecrets };
  }
  return { name: reference.name, imagePullSecrets: current.imagePullSecrets ?? [] };
}

/** Removes an image catalog's registry Pods and Service (when its spec stops naming an image). */
export async function removeRegistryServer(client: KubeClient, source: { namespace: string; name: string }): Promise<void> {
  const pods = (await client.list(Kinds.pod, { namespace: source.namespace, labelSelector: `${catalogSourceLabel}=${source.name}` })).items;
  for (const pod of pods) await deleteIgnoringMissing(client, { ...Kinds.pod, namespace: source.namespace, name: pod.metadata?.name ?? '' });
  const service = await client.find({ ...Kinds.service, namespace: source.namespace, name: registryServiceName(source.name) });
  if (service?.metadata?.labels?.[catalogSourceLabel] === source.name) {
    await deleteIgnoringMissing(client, { ...Kinds.service, namespace: source.namespace, name: registryServiceName(source.name) });
  }
}

async function createIgnoringConflict(client: KubeClient, object: AnyObject): Promise<void> {
  try {
    await client.create(object);
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
}

async function deleteIgnoringMissing(client: KubeClient, reference: { apiVersion: string; kind: string; namespace: string; name: string }): Promise<void> {
  try {
    await client.delete(reference);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}
