import type { ClusterServiceVersion } from '@olm/api';
import { Labels } from '@olm/api';
import type { CachedObject } from '@olm/core';
import type { OwnerReference } from '@olm/core';
import { nonBlockingOwnerReference, objectAt, ownerLabels, type CsvForDeployment } from '../install/deployment/deployment-strategy.js';

/** A serving deployment's Service and Secret (`<deployment>-service`, `<deployment>-service-cert`); undefined when absent. */
export interface ServingObjects {
  readonly service?: CachedObject;
  readonly secret?: CachedObject;
}

/**
 * What OLM creates next to a deployment that serves owned APIServices or webhooks (upstream
 * `certresources.go`): a Service selecting its pods, a Secret with its serving certificate, a Role and
 * RoleBinding letting its service account read that Secret, and the bindings an aggregated API server
 * needs (`system:auth-delegator`, `extension-apiserver-authentication-reader` in kube-system). The pod
 * template mounts the Secret and carries the CA's hash, so pods restart when the certificate changes.
 * Names, labels, keys and paths are upstream's.
 */

type JsonObject = Record<string, unknown>;

/** On the Secret and the pod template: hex SHA-256 of the CA PEM. */
export const caHashAnnotation = 'olmcahash';
/** Secret key of the CA certificate PEM (upstream's name, although it holds no key). */
export const caPemKey = 'olmCAKey';
export const kubeSystemNamespace = 'kube-system';
const managedLabels = (): Record<string, string> => ({ [Labels.managed]: 'true' });

export const serviceName = (deploymentName: string) => `${deploymentName}-service`;
export const secretName = (service: string) => `${service}-cert`;
export const authDelegatorBindingName = (service: string) => `${service}-system:auth-delegator`;
export const authReaderBindingName = (service: string) => `${service}-auth-reader`;

/** The DNS names the serving certificate is for. */
export function hostnamesForService(service: string, namespace: string): string[] {
  return [`${service}.${namespace}`, `${service}.${namespace}.svc`, `${service}.${namespace}.svc.cluster.local`];
}

export interface ServicePort {
  readonly name: string;
  readonly port: number;
  readonly targetPort: number | string;
}

/** An owned APIService or a webhook, as far as its serving deployment is concerned. */
export interface CertResource {
  readonly kind: 'APIService' | 'Webhook';
  /** `<version>.<group>` or the webhook's `generateName`. */
  readonly name: string;
  readonly deploymentName: string;
  readonly port: ServicePort;
}

const defaultPort = 443;

/** The owned APIServices, then the webhooks, of the CSV. */
export function certResources(csv: ClusterServiceVersion): CertResource[] {
  const resources: CertResource[] = [];
  for (const description of csv.spec.apiservicedefinitions?.owned ?? []) {
    const port = description.containerPort && description.containerPort > 0 ? description.containerPort : defaultPort;
    resources.push({
      kind: 'APIService',
      name: `${description.version}.${description.group}`,
      deploymentName: description.deploymentName ?? '',
      port: { name: String(port), port, targetPort: port },
    });
  }
  for (const webhook of csv.spec.webhookdefinitions ?? []) {
    const port = webhookPort(webhook);
    // Before `targetPort` existed the Service targeted the container port; it still does when unset.
    const targetPort = webhook.targetPort === undefined || webhook.targetPort === '' ? port : webhook.targetPort;
    resources.push({ kind: 'Webhook', name: webhook.generateName, deploymentName: webhook.deploymentName ?? '', port: { name: String(port), port, targetPort } });
  }
  return resources;
}

export function webhookPort(webhook: { readonly containerPort?: number }): number {
  return webhook.containerPort && webhook.containerPort > 0 ? webhook.containerPort : defaultPort;
}

/** Whether the CSV owns APIServices or webhooks (upstream `HasCAResources`). */
export function hasCertResources(csv: ClusterServiceVersion): boolean {
  return certResources(csv).length > 0;
}

/** The names of the deployments serving an owned APIService or webhook. */
export function certDeploymentNames(csv: ClusterServiceVersion): Set<string> {
  return new Set(certResources(csv).map((resource) => resource.deploymentName));
}

/** The Service ports of one deployment's resources, each distinct port once, in order. */
export function servicePorts(resources: readonly CertResource[]): ServicePort[] {
  const ports: ServicePort[] = [];
  for (const { port } of resources) {
    if (!ports.some((known) => known.name === port.name && known.port === port.port && known.targetPort === port.targetPort)) ports.push(port);
  }
  return ports;
}

/** The Service `<deployment>-service` selecting the deployment's pods. */
export function certService(csv: CsvForDeployment, deploymentName: string, selector: Record<string, string>, ports: readonly ServicePort[]): CachedObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: serviceName(deploymentName),
      namespace: csv.metadata.namespace,
      labels: managedLabels(),
      ...ownerReferences(csv),
    },
    spec: { ports: ports.map((port) => ({ ...port })), selector: { ...selector } },
  };
}

export interface ServingSecretData {
  readonly caPem: string;
  readonly certPem: string;
  readonly keyPem: string;
}

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** The TLS Secret `<service>-cert`: `tls.crt`, `tls.key`, the CA under `olmCAKey`, and the CA's hash. */
export function certSecret(csv: CsvForDeployment, service: string, data: ServingSecretData, caHash: string): CachedObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/tls',
    metadata: {
      name: secretName(service),
      namespace: csv.metadata.namespace,
      labels: managedLabels(),
      annotations: { [caHashAnnotation]: caHash },
      ...ownerReferences(csv),
    },
    data: { 'tls.crt': base64(data.certPem), 'tls.key': base64(data.keyPem), [caPemKey]: base64(data.caPem) },
  };
}

/** The PEM texts of a Secret's data (base64 as stored). */
export function secretMaterial(secret: CachedObject | undefined): { caPem?: string; certPem?: string; keyPem?: string } {
  const data = (secret?.data ?? {}) as Record<string, string | undefined>;
  const decode = (value: string | undefined) => (value ? Buffer.from(value, 'base64').toString('utf8') : undefined);
  return { caPem: decode(data[caPemKey]), certPem: decode(data['tls.crt']), keyPem: decode(data['tls.key']) };
}

const serviceAccountSubject = (csv: CsvForDeployment, serviceAccount: string) => [
  { kind: 'ServiceAccount', apiGroup: '', name: serviceAccount, namespace: csv.metadata.namespace },
];

/** The Role `<secret>` granting `get` on the Secret alone. */
export function secretRole(csv: CsvForDeployment, secret: string): CachedObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: secret, namespace: csv.metadata.namespace, labels: managedLabels(), ...ownerReferences(csv) },
    rules: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: [secret] }],
  };
}

/** The RoleBinding `<secret>` of that Role to the deployment's service account. */
export function secretRoleBinding(csv: CsvForDeployment, secret: string, serviceAccount: string): CachedObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: secret, namespace: csv.metadata.namespace, labels: managedLabels(), ...ownerReferences(csv) },
    subjects: serviceAccountSubject(csv, serviceAccount),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: secret },
  };
}

/** The ClusterRoleBinding `<service>-system:auth-delegator` (owner labels: it is cluster-scoped). */
export function authDelegatorBinding(csv: CsvForDeployment, service: string, serviceAccount: string): CachedObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: authDelegatorBindingName(service), labels: { ...managedLabels(), ...ownerLabels(csv) } },
    subjects: serviceAccountSubject(csv, serviceAccount),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:auth-delegator' },
  };
}

/** The RoleBinding `<service>-auth-reader` in kube-system (owner labels: it is outside the CSV's namespace). */
export function authReaderBinding(csv: CsvForDeployment, service: string, serviceAccount: string): CachedObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: authReaderBindingName(service), namespace: kubeSystemNamespace, labels: { ...managedLabels(), ...ownerLabels(csv) } },
    subjects: serviceAccountSubject(csv, serviceAccount),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'extension-apiserver-authentication-reader' },
  };
}

function ownerReferences(csv: CsvForDeployment): { ownerReferences?: OwnerReference[] } {
  const reference = nonBlockingOwnerReference(csv);
  return reference ? { ownerReferences: [reference] } : {};
}

/** The service account a deployment spec runs as (`default` when unset). */
export function serviceAccountOf(spec: JsonObject): string {
  const podSpec = ((spec.template as JsonObject | undefined)?.spec ?? {}) as JsonObject;
  return typeof podSpec.serviceAccountName === 'string' && podSpec.serviceAccountName !== '' ? podSpec.serviceAccountName : 'default';
}

/** The label selector a deployment spec's Service uses (`spec.selector.matchLabels`). */
export function podSelectorOf(spec: JsonObject): Record<string, string> {
  return { ...(((spec.selector as JsonObject | undefined)?.matchLabels ?? {}) as Record<string, string>) };
}

const certVolumes = (secret: string) => [
  {
    volume: { name: 'apiservice-cert', secret: { secretName: secret, items: [{ key: 'tls.crt', path: 'apiserver.crt' }, { key: 'tls.key', path: 'apiserver.key' }] } },
    mount: { name: 'apiservice-cert', mountPath: '/apiserver.local.config/certificates' },
  },
  // Where Operator SDK and kubebuilder webhook servers look for their certificate.
  {
    volume: { name: 'webhook-cert', secret: { secretName: secret, items: [{ key: 'tls.crt', path: 'tls.crt' }, { key: 'tls.key', path: 'tls.key' }] } },
    mount: { name: 'webhook-cert', mountPath: '/tmp/k8s-webhook-server/serving-certs' },
  },
];

/**
 * The pod template as OLM runs a serving workload's pods: the service account made explicit, the Secret
 * mounted where aggregated API servers and webhook servers expect it (a volume of the same name, or a
 * mount at the same path, is replaced), and the CA's hash annotated.
 */
export function servingPodTemplate(podTemplate: Readonly<JsonObject>, secret: string, caHash: string): JsonObject {
  const template: JsonObject = structuredClone(podTemplate);
  const podSpec = objectAt(template, 'spec');
  podSpec.serviceAccountName = serviceAccountOf({ template });
  for (const { volume, mount } of certVolumes(secret)) {
    const volumes = Array.isArray(podSpec.volumes) ? (podSpec.volumes as JsonObject[]) : [];
    const index = volumes.findIndex((existing) => existing.name === volume.name);
    if (index >= 0) volumes[index] = volume;
    else volumes.push(volume);
    podSpec.volumes = volumes;
    for (const container of Array.isArray(podSpec.containers) ? (podSpec.containers as JsonObject[]) : []) {
      const mounts = Array.isArray(container.volumeMounts) ? (container.volumeMounts as JsonObject[]) : [];
      if (mounts.some((existing) => existing.name === mount.name)) continue;
      const samePath = mounts.findIndex((existing) => existing.mountPath === mount.mountPath);
      if (samePath >= 0) mounts[samePath] = { ...mount };
      else mounts.push({ ...mount });
      container.volumeMounts = mounts;
    }
  }
  const metadata = objectAt(template, 'metadata');
  metadata.annotations = { ...((metadata.annotations as Record<string, string> | undefined) ?? {}), [caHashAnnotation]: caHash };
  return template;
}
