import type { ClusterServiceVersion } from '@olm/api';
import type { CachedObject, KubeClient, ServingWorkload } from '@olm/core';
import { isAlreadyExists, isNotFound, isSemanticallyEqual, withoutManagedFields } from '@olm/controller-runtime';
import {
  authDelegatorBinding,
  authReaderBinding,
  caHashAnnotation,
  certDeploymentNames,
  certResources,
  certSecret,
  certService,
  hostnamesForService,
  kubeSystemNamespace,
  secretMaterial,
  secretName,
  secretRole,
  secretRoleBinding,
  serviceName,
  servicePorts,
} from './cert-resources.js';
import { certificateRotatesAt, generateCertificateAuthority, pemSha256, servingCertificateProblem, type CertificateAuthority } from './certificates.js';
import { ownerLabels, type CsvForDeployment } from '../install/deployment/deployment-strategy.js';
import { fieldManager } from '../kinds.js';
import type { ServingSnapshot } from './serving-snapshot.js';

type JsonObject = Record<string, unknown>;
type CsvInput = ClusterServiceVersion & CsvForDeployment;

/**
 * Why the certificate in a serving Secret must be made again, or undefined: the material fails
 * `servingCertificateProblem`, or the Secret's `olmcahash` no longer names its CA (someone changed it).
 */
export function secretRenewalReason(secret: CachedObject | undefined, hosts: readonly string[], now: Date): string | undefined {
  if (!secret) return 'no serving certificate Secret';
  const material = secretMaterial(secret);
  const problem = servingCertificateProblem(material, hosts, now);
  if (problem) return problem;
  if (secret.metadata?.annotations?.[caHashAnnotation] !== pemSha256(material.caPem ?? '')) return 'the CA hash annotation does not match the CA';
  return undefined;
}

/**
 * Upstream `installCertRequirements`: for each deployment serving an owned APIService or webhook, its
 * Service, its serving certificate Secret (kept while valid, else signed by a CA made for this install),
 * the Role and RoleBinding to read it, and the auth-delegator and auth-reader bindings.
 */
export async function installServingCertificates(client: KubeClient, csv: CsvInput, workloads: readonly ServingWorkload[], now: Date): Promise<Map<string, string>> {
  const resources = certResources(csv);
  const namespace = csv.metadata.namespace;
  const caBundles = new Map<string, string>();
  let ca: CertificateAuthority | undefined;
  for (const workload of workloads) {
    const served = resources.filter((resource) => resource.deploymentName === workload.name);
    if (served.length === 0) continue;
    const service = serviceName(workload.name);
    await applyObject(client, certService(csv, workload.name, { ...workload.podLabels }, servicePorts(served)), (live, desired) => ({
      // Fields the cluster allocated (clusterIP, …) stay; OLM owns the ports and the selector.
      spec: { ...((live.spec ?? {}) as JsonObject), ...((desired.spec ?? {}) as JsonObject) },
    }));
    const hosts = hostnamesForService(service, namespace);
    const secretReference = { apiVersion: 'v1', kind: 'Secret', namespace, name: secretName(service) };
    const live = await client.find(secretReference);
    let caPem: string;
    if (live && secretRenewalReason(live, hosts, now) === undefined) {
      // Still valid: kept as it is, only owned by this CSV as well (its predecessor may be deleted).
      const material = secretMaterial(live) as { caPem: string; certPem: string; keyPem: string };
      caPem = material.caPem;
      await applyObject(client, certSecret(csv, service, material, pemSha256(caPem)), () => ({}));
    } else {
      ca ??= await generateCertificateAuthority(now);
      const serving = await ca.sign(hosts, now);
      caPem = ca.certPem;
      await applyObject(client, certSecret(csv, service, { caPem, ...serving }, pemSha256(caPem)), (_, desired) => ({
        type: desired.type,
        data: desired.data,
        metadata: { annotations: desired.metadata?.annotations },
      }));
    }
    caBundles.set(workload.name, caPem);
    const account = workload.serviceAccountName;
    const secret = secretName(service);
    await applyObject(client, secretRole(csv, secret), (_, desired) => ({ rules: desired.rules }));
    for (const binding of [secretRoleBinding(csv, secret, account), authDelegatorBinding(csv, service, account), authReaderBinding(csv, service, account)]) {
      await applyObject(client, binding, (_, desired) => ({ subjects: desired.subjects, roleRef: desired.roleRef }));
    }
  }
  return caBundles;
}

/**
 * Why the CSV's serving certificates must be renewed (upstream `ShouldRotateCerts`: a serving
 * deployment's Secret, as the sync's snapshot shows it, is missing, unreadable, not valid for its
 * Service, or within a day of expiring), or undefined.
 */
export function certRenewalReason(csv: CsvInput, snapshot: ServingSnapshot, now: Date): string | undefined {
  for (const deployment of certDeploymentNames(csv)) {
    const service = serviceName(deployment);
    const secret = snapshot.deployments.get(deployment)?.secret;
    const reason = secretRenewalReason(secret, hostnamesForService(service, csv.metadata.namespace), now);
    if (reason) return `${secretName(service)}: ${reason}`;
  }
  return undefined;
}

/** When the first of the CSV's serving certificates is due for renewal (`status.certsRotateAt`), if any. */
export async function certsRotateAt(client: KubeClient, csv: CsvInput): Promise<Date | undefined> {
  let earliest: Date | undefined;
  for (const deployment of certDeploymentNames(csv)) {
    const secret = await client.find({ apiVersion: 'v1', kind: 'Secret', namespace: csv.metadata.namespace, name: secretName(serviceName(deployment)) });
    const rotatesAt = certificateRotatesAt(secretMaterial(secret).certPem);
    if (rotatesAt && (!earliest || rotatesAt < earliest)) earliest = rotatesAt;
  }
  return earliest;
}

type Merge = (live: CachedObject, desired: CachedObject) => Partial<CachedObject>;

const referenceKey = (reference: { kind?: unknown; name?: unknown; uid?: unknown }) => `${String(reference.kind)}/${String(reference.name)}/${String(reference.uid)}`;

/**
 * Creates the object, or updates the live one with `merge`'s fields, its labels and owner references
 * added (owners are kept, so that a replaced CSV's objects survive its deletion for its replacement).
 * A binding whose `roleRef` must change is recreated, `roleRef` being immutable.
 */
export async function applyObject(client: KubeClient, desired: CachedObject, merge: Merge): Promise<void> {
  const reference = {
    apiVersion: desired.apiVersion!,
    kind: desired.kind!,
    name: desired.metadata!.name!,
    ...(desired.metadata?.namespace ? { namespace: desired.metadata.namespace } : {}),
  };
  const live = await client.find(reference);
  if (!live) {
    try {
      await client.create(desired, { fieldManager });
    } catch (error) {
      // Created meanwhile: the next sync converges it.
      if (!isAlreadyExists(error)) throw error;
    }
    return;
  }
  const { metadata: mergedMetadata, ...fields } = merge(live, desired);
  const references = [...(live.metadata?.ownerReferences ?? [])];
  for (const owner of desired.metadata?.ownerReferences ?? []) {
    if (!references.some((known) => referenceKey(known) === referenceKey(owner))) references.push(owner);
  }
  const metadata = {
    ...live.metadata,
    labels: { ...(live.metadata?.labels ?? {}), ...(desired.metadata?.labels ?? {}) },
    ...(mergedMetadata?.annotations ? { annotations: { ...(live.metadata?.annotations ?? {}), ...mergedMetadata.annotations } } : {}),
    ...(references.length > 0 ? { ownerReferences: references } : {}),
  };
  delete (metadata as { managedFields?: unknown }).managedFields;
  const next: CachedObject = { ...live, ...fields, metadata };
  if (isSemanticallyEqual(next, withoutManagedFields(live))) return;
  if (desired.roleRef !== undefined && !isSemanticallyEqual(live.roleRef, desired.roleRef)) {
    await client.delete(reference).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
    await client.create({ ...next, metadata: { ...metadata, resourceVersion: undefined, uid: undefined } }, { fieldManager });
    return;
  }
  await client.replace(next, { fieldManager });
}

/** Deletes the CSV's auth-reader RoleBindings in kube-system (on its deletion: no owner reference reaches there). */
export async function deleteAuthReaderBindings(client: KubeClient, csv: CsvForDeployment): Promise<void> {
  const selector = Object.entries(ownerLabels(csv))
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
  const bindings = await client.list({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding' }, { namespace: kubeSystemNamespace, labelSelector: selector });
  for (const binding of bindings.items) {
    await client.delete({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', namespace: kubeSystemNamespace, name: binding.metadata?.name ?? '' }).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
  }
}
