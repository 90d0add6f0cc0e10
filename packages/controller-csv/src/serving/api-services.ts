import type { ApiService, APIServiceDescription, ClusterServiceVersion } from '@olm/api';
import type { CachedObject, KubeClient, ObjectReader } from '@olm/core';
import { hasErrorCode, OlmError } from '@olm/core';
import { apiStatusCode, isSemanticallyEqual, RuntimeErrorCodes, withoutManagedFields } from '@olm/controller-runtime';
import { isApiServiceAdoptableBy } from './api-service-ownership.js';
import {
  authDelegatorBindingName,
  authReaderBindingName,
  caHashAnnotation,
  kubeSystemNamespace,
  secretMaterial,
  secretName,
  serviceName,
  type ServingObjects,
} from './cert-resources.js';
import { isCertificatePem, pemSha256 } from './certificates.js';
import { ownerLabels, type CsvForDeployment } from '../install/deployment/deployment-strategy.js';
import { fieldManager, Kinds } from '../kinds.js';

/**
 * A CSV's owned APIServices (upstream `install/apiservice.go` and `olm/apiservices.go`): the
 * `apiregistration.k8s.io/v1` APIService `<version>.<group>` pointing at the serving deployment's
 * Service with its CA, whether it is available, and whether what OLM generated for it is intact.
 */

type CsvInput = ClusterServiceVersion & CsvForDeployment;

/** What the APIService checks read of a sync's serving snapshot (`ServingSnapshot`). */
export interface ApiServiceSnapshot {
  /** Each owned APIService by `<version>.<group>`; undefined when there is none. */
  readonly apiServices: ReadonlyMap<string, ApiServiceManifest | undefined>;
  /** Each serving deployment's Service and Secret, by deployment name. */
  readonly deployments: ReadonlyMap<string, ServingObjects>;
}

/** An APIService, as read or as OLM writes it. */
export type ApiServiceManifest = ApiService & CachedObject;

/** Priorities upstream gives the APIServices it creates (an existing one keeps its own). */
export const apiServiceGroupPriorityMinimum = 2000;
export const apiServiceVersionPriority = 15;

export const apiServiceName = (description: Pick<APIServiceDescription, 'group' | 'version'>) => `${description.version}.${description.group}`;

/** The APIService for an owned description: the existing one (or a new one) with OLM's owner labels, Service and CA. */
export function desiredApiService(csv: CsvForDeployment, description: APIServiceDescription, caPem: string, existing?: ApiServiceManifest): ApiServiceManifest {
  const base: ApiServiceManifest = existing
    ? structuredClone(existing)
    : {
        apiVersion: Kinds.apiService.apiVersion,
        kind: Kinds.apiService.kind,
        metadata: { name: apiServiceName(description) },
        spec: {
          group: description.group,
          version: description.version,
          groupPriorityMinimum: apiServiceGroupPriorityMinimum,
          versionPriority: apiServiceVersionPriority,
        },
      };
  delete (base.metadata as { managedFields?: unknown }).managedFields;
  base.metadata = { ...base.metadata, labels: { ...(base.metadata?.labels ?? {}), ...ownerLabels(csv) } };
  const port = description.containerPort && description.containerPort > 0 ? description.containerPort : 443;
  base.spec = {
    ...base.spec,
    service: { namespace: csv.metadata.namespace, name: serviceName(description.deploymentName ?? ''), port },
    caBundle: Buffer.from(caPem, 'utf8').toString('base64'),
  };
  return base;
}

/** The APIService of that name, or undefined when it (or the APIService API) does not exist. */
export async function findApiService(client: KubeClient, name: string): Promise<ApiServiceManifest | undefined> {
  try {
    return await client.find({ ...Kinds.apiService, name });
  } catch (error) {
    if (hasErrorCode(error, RuntimeErrorCodes.unknownKind)) return undefined;
    throw error;
  }
}

/** Creates or updates each owned APIService served by a strategy deployment (upstream `createOrUpdateAPIService`); one OLM may not adopt fails the install. */
export async function installApiServices(client: KubeClient, csv: CsvInput, caBundles: ReadonlyMap<string, string>, cache: ObjectReader): Promise<void> {
  for (const description of csv.spec.apiservicedefinitions?.owned ?? []) {
    const name = apiServiceName(description);
    const caPem = caBundles.get(description.deploymentName ?? '');
    // No such deployment in the strategy: the reconciler sends the CSV back (`calculated deployment install is bad`).
    if (caPem === undefined) continue;
    const existing = await findApiService(client, name);
    if (existing && !isApiServiceAdoptableBy(existing.metadata?.labels, csv, cache)) {
      throw new OlmError('OLM_CSV_APISERVICE_NOT_ADOPTABLE', `pre-existing APIService ${name} is not adoptable`);
    }
    const desired = desiredApiService(csv, description, caPem, existing);
    if (!existing) await client.create(desired, { fieldManager });
    else if (!isSemanticallyEqual(desired, withoutManagedFields(existing))) await client.replace(desired, { fieldManager });
  }
}

/** Upstream `IsAPIServiceAvailable`: its `Available` condition is True. */
export function isApiServiceAvailable(apiService: ApiServiceManifest | undefined): boolean {
  return (apiService?.status?.conditions ?? []).some((condition) => condition.type === 'Available' && condition.status === 'True');
}

/** Whether a CSV's APIServices or webhooks serve: `error` fails the install, `retry` waits for the API server. */
export interface ServingAvailability {
  readonly available: boolean;
  readonly error?: string;
  readonly retry?: boolean;
}

const unavailable = (error: unknown): ServingAvailability | undefined => (apiStatusCode(error) === 503 ? { available: false, retry: true } : undefined);

/**
 * Upstream `areAPIServicesAvailable`: every owned APIService exists and is Available (as the sync's
 * snapshot shows it), and discovery of its group/version lists its kind. A discovery document that
 * cannot be read is an error.
 */
export async function apiServicesAvailability(client: KubeClient, csv: CsvInput, snapshot: ApiServiceSnapshot): Promise<ServingAvailability> {
  for (const description of csv.spec.apiservicedefinitions?.owned ?? []) {
    if (!isApiServiceAvailable(snapshot.apiServices.get(apiServiceName(description)))) return { available: false };
    const groupVersion = `${description.group}/${description.version}`;
    let document: unknown;
    try {
      document = await client.request({ method: 'GET', path: `/apis/${groupVersion}` });
    } catch (error) {
      if (apiStatusCode(error) === 404) return { available: false };
      return unavailable(error) ?? { available: false, error: (error as Error).message };
    }
    const resources = (document as { resources?: unknown } | undefined)?.resources;
    if (typeof document !== 'object' || document === null || !Array.isArray(resources)) {
      return { available: false, error: `the discovery document of ${groupVersion} is not an APIResourceList` };
    }
    if (!resources.some((resource) => (resource as { kind?: unknown }).kind === description.kind)) return { available: false };
  }
  return { available: true };
}

/** What is wrong with the resources OLM generated for the owned APIServices, and whether reinstalling can fix it. */
export interface ApiServiceResourceProblem {
  readonly message: string;
  /** False when an APIService belongs to someone OLM may not take it from (upstream `UnadoptableError`). */
  readonly actionable: boolean;
}

const notFound = (resource: string, name: string) => `${resource} "${name}" not found`;

/**
 * Upstream `checkAPIServiceResources`, on the sync's snapshot and the informer cache: for each owned
 * APIService, it exists and may be adopted, its Service exists and is the one it points at, its CA
 * bundle and the serving certificate are readable, the Secret's and the pod template's `olmcahash` match
 * the CA bundle, and the service account, the Secret's Role and RoleBinding and the auth-delegator and
 * auth-reader bindings exist. Messages are upstream's (joined as its aggregate errors are).
 */
export function apiServiceResourceProblem(csv: CsvInput, snapshot: ApiServiceSnapshot, cache: ObjectReader): ApiServiceResourceProblem | undefined {
  const namespace = csv.metadata.namespace;
  const errors: string[] = [];
  const fail = (message: string, actionable = true): ApiServiceResourceProblem => ({ message: aggregate([...errors, message]), actionable });
  for (const description of csv.spec.apiservicedefinitions?.owned ?? []) {
    const name = apiServiceName(description);
    const apiService = snapshot.apiServices.get(name);
    if (!apiService) {
      errors.push(notFound('apiservices.apiregistration.k8s.io', name));
      continue;
    }
    if (!isApiServiceAdoptableBy(apiService.metadata?.labels, csv, cache)) return fail(`${name} is unadoptable`, false);
    const deploymentName = description.deploymentName ?? '';
    const service = serviceName(deploymentName);
    const served = snapshot.deployments.get(deploymentName);
    if (!served?.service) {
      errors.push(notFound('services', service));
      continue;
    }
    if (apiService.spec?.service?.name !== service || apiService.spec.service.namespace !== namespace) {
      errors.push('found APIService and service reference mismatch');
      continue;
    }
    const caPem = apiService.spec.caBundle ? Buffer.from(apiService.spec.caBundle, 'base64').toString('utf8') : '';
    if (!isCertificatePem(caPem)) {
      errors.push('cert PEM empty');
      continue;
    }
    const secret = secretName(service);
    const secretObject = served.secret;
    if (!secretObject) {
      errors.push(notFound('secrets', secret));
      continue;
    }
    if (!isCertificatePem(secretMaterial(secretObject).certPem)) {
      errors.push('cert PEM empty');
      continue;
    }
    const caHash = pemSha256(caPem);
    if (secretObject.metadata?.annotations?.[caHashAnnotation] !== caHash) {
      errors.push(`secret ${secret} CA cert hash does not match expected`);
      continue;
    }
    const deployment = cache.get(Kinds.deployment, deploymentName, namespace);
    if (!deployment) {
      errors.push(notFound('deployments.apps', deploymentName));
      continue;
    }
    if (deployment.spec?.template?.metadata?.annotations?.[caHashAnnotation] !== caHash) {
      errors.push(`deployment ${deploymentName} CA cert hash does not match expected`);
      continue;
    }
    const account = deployment.spec?.template?.spec?.serviceAccountName || 'default';
    if (!cache.get(Kinds.serviceAccount, account, namespace)) errors.push(notFound('serviceaccounts', account));
    if (!cache.get(Kinds.role, secret, namespace)) errors.push(notFound('roles.rbac.authorization.k8s.io', secret));
    if (!cache.get(Kinds.roleBinding, secret, namespace)) errors.push(notFound('rolebindings.rbac.authorization.k8s.io', secret));
    if (!cache.get(Kinds.clusterRoleBinding, authDelegatorBindingName(service))) {
      errors.push(notFound('clusterrolebindings.rbac.authorization.k8s.io', authDelegatorBindingName(service)));
    }
    if (!cache.get(Kinds.roleBinding, authReaderBindingName(service), kubeSystemNamespace)) {
      errors.push(notFound('rolebindings.rbac.authorization.k8s.io', authReaderBindingName(service)));
    }
  }
  return errors.length > 0 ? { message: aggregate(errors), actionable: true } : undefined;
}

/** As Kubernetes' aggregate errors read: one message alone, several in brackets; duplicates once. */
function aggregate(messages: readonly string[]): string {
  const distinct = [...new Set(messages)];
  return distinct.length === 1 ? distinct[0]! : `[${distinct.join(', ')}]`;
}

/** The CA bundle of an owned APIService (upstream `getAPIServiceCABundle`), or undefined. */
export function apiServiceCaPem(apiService: ApiServiceManifest | undefined): string | undefined {
  const bundle = apiService?.spec?.caBundle;
  return bundle ? Buffer.from(bundle, 'base64').toString('utf8') : undefined;
}

/** Deletes the owned APIServices still labelled as this CSV's (on its deletion; a replacement has relabelled them). */
export async function deleteOwnedApiServices(client: KubeClient, csv: CsvInput): Promise<void> {
  for (const description of csv.spec.apiservicedefinitions?.owned ?? []) {
    const name = apiServiceName(description);
    const apiService = await findApiService(client, name);
    const labels = apiService?.metadata?.labels ?? {};
    if (!apiService || Object.entries(ownerLabels(csv)).some(([key, value]) => labels[key] !== value)) continue;
    await client.delete({ ...Kinds.apiService, name }).catch((error: unknown) => {
      if (apiStatusCode(error) !== 404) throw error;
    });
  }
}
