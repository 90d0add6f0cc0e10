import { isJsonObject, type JsonObject } from './kube-object.js';

/**
 * kube-apiserver's defaulting of pod specs (k8s.io/kubernetes pkg/apis/core/v1/defaults.go), for
 * Pods and for the pod templates of Deployments and ReplicaSets, plus what the v1 conversion and the
 * default admission plugins add to Pods (`serviceAccount`, `priority`, the not-ready and unreachable
 * tolerations). Go defaults a field when it is empty: an absent, null, `""` or `0` value.
 */
function isUnset(value: unknown): boolean {
  return value === undefined || value === null || value === '' || value === 0;
}

function setDefault(object: JsonObject, field: string, value: unknown): void {
  if (isUnset(object[field])) object[field] = value;
}

/** A Go pointer is defaulted only when nil: an explicit 0 or false stays. */
function setPointerDefault(object: JsonObject, field: string, value: unknown): void {
  if (object[field] === undefined || object[field] === null) object[field] = value;
}

function objects(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.filter(isJsonObject) : [];
}

function child(object: JsonObject, field: string): JsonObject | undefined {
  const value = object[field];
  return isJsonObject(value) ? value : undefined;
}

/** The tag the container runtime would pull: none and no digest means `latest`. */
export function imageTag(image: string): string | undefined {
  const at = image.indexOf('@');
  const name = at >= 0 ? image.slice(0, at) : image;
  const colon = name.lastIndexOf(':');
  if (colon > name.lastIndexOf('/')) return name.slice(colon + 1);
  return at >= 0 ? undefined : 'latest';
}

/** `Always` for `:latest` or an untagged image without a digest, else `IfNotPresent`. */
export function defaultPullPolicy(image: unknown): string {
  return typeof image === 'string' && image !== '' && imageTag(image) === 'latest' ? 'Always' : 'IfNotPresent';
}

const defaultFileMode = 0o644;

function defaultFieldRef(holder: JsonObject | undefined): void {
  const fieldRef = holder ? child(holder, 'fieldRef') : undefined;
  if (fieldRef) setDefault(fieldRef, 'apiVersion', 'v1');
}

function defaultHandler(handler: JsonObject | undefined): void {
  if (!handler) return;
  const httpGet = child(handler, 'httpGet');
  if (httpGet) {
    setDefault(httpGet, 'path', '/');
    setDefault(httpGet, 'scheme', 'HTTP');
  }
  const grpc = child(handler, 'grpc');
  if (grpc) setPointerDefault(grpc, 'service', '');
}

function defaultProbe(probe: JsonObject | undefined): void {
  if (!probe) return;
  setDefault(probe, 'timeoutSeconds', 1);
  setDefault(probe, 'periodSeconds', 10);
  setDefault(probe, 'successThreshold', 1);
  setDefault(probe, 'failureThreshold', 3);
  defaultHandler(probe);
}

function defaultContainer(container: JsonObject, hostNetwork: boolean): void {
  setDefault(container, 'imagePullPolicy', defaultPullPolicy(container['image']));
  setDefault(container, 'terminationMessagePath', '/dev/termination-log');
  setDefault(container, 'terminationMessagePolicy', 'File');
  for (const port of objects(container['ports'])) {
    setDefault(port, 'protocol', 'TCP');
    if (hostNetwork) setDefault(port, 'hostPort', port['containerPort']);
  }
  for (const env of objects(container['env'])) defaultFieldRef(child(env, 'valueFrom'));
  for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) defaultProbe(child(container, probe));
  const lifecycle = child(container, 'lifecycle');
  if (lifecycle) for (const hook of ['postStart', 'preStop']) defaultHandler(child(lifecycle, hook));
}

const volumeSourcesWithMode = ['secret', 'configMap', 'downwardAPI', 'projected'];

function defaultVolume(volume: JsonObject): void {
  // A volume that names no source is an emptyDir.
  if (Object.keys(volume).every((key) => key === 'name' || volume[key] === undefined || volume[key] === null)) volume['emptyDir'] = {};
  for (const source of volumeSourcesWithMode) {
    const value = child(volume, source);
    if (value) setPointerDefault(value, 'defaultMode', defaultFileMode);
  }
  const hostPath = child(volume, 'hostPath');
  if (hostPath) setPointerDefault(hostPath, 'type', '');
  for (const item of objects(child(volume, 'downwardAPI')?.['items'])) defaultFieldRef(item);
  for (const projection of objects(child(volume, 'projected')?.['sources'])) {
    const token = child(projection, 'serviceAccountToken');
    if (token) setPointerDefault(token, 'expirationSeconds', 3600);
    for (const item of objects(child(projection, 'downwardAPI')?.['items'])) defaultFieldRef(item);
  }
}

/** Defaults a PodSpec in place, as for a pod template (SetDefaults_PodSpec and what it reaches). */
export function defaultPodSpec(spec: JsonObject): void {
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'restartPolicy', 'Always');
  setPointerDefault(spec, 'securityContext', {});
  setPointerDefault(spec, 'terminationGracePeriodSeconds', 30);
  setDefault(spec, 'schedulerName', 'default-scheduler');
  // The v1 conversion keeps the deprecated `serviceAccount` equal to `serviceAccountName`.
  if (isUnset(spec['serviceAccountName']) && !isUnset(spec['serviceAccount'])) spec['serviceAccountName'] = spec['serviceAccount'];
  if (!isUnset(spec['serviceAccountName'])) spec['serviceAccount'] = spec['serviceAccountName'];
  const hostNetwork = spec['hostNetwork'] === true;
  for (const field of ['initContainers', 'containers', 'ephemeralContainers']) for (const container of objects(spec[field])) defaultContainer(container, hostNetwork);
  for (const volume of objects(spec['volumes'])) defaultVolume(volume);
}

/** The tolerations kube-apiserver's DefaultTolerationSeconds admission adds to every Pod. */
const defaultTolerations = ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable'];

/** Defaults a Pod's spec: the PodSpec defaults, SetDefaults_Pod's, and (on create) the default admission plugins'. */
export function defaultPod(spec: JsonObject, isCreate: boolean): void {
  // Requests default to the limits where only limits are set.
  for (const field of ['initContainers', 'containers']) {
    for (const container of objects(spec[field])) {
      const resources = child(container, 'resources');
      const limits = resources ? child(resources, 'limits') : undefined;
      if (!resources || !limits) continue;
      const requests: JsonObject = { ...(child(resources, 'requests') ?? {}) };
      for (const [name, quantity] of Object.entries(limits)) if (requests[name] === undefined) requests[name] = quantity;
      resources['requests'] = requests;
    }
  }
  defaultPodSpec(spec);
  setPointerDefault(spec, 'enableServiceLinks', true);
  setDefault(spec, 'serviceAccountName', 'default');
  spec['serviceAccount'] = spec['serviceAccountName'];
  if (!isCreate) return;
  if (isUnset(spec['priorityClassName'])) setPointerDefault(spec, 'priority', 0);
  setPointerDefault(spec, 'preemptionPolicy', 'PreemptLowerPriority');
  const tolerations = objects(spec['tolerations']);
  const added = defaultTolerations
    .filter((key) => !tolerations.some((toleration) => (toleration['key'] === key || toleration['key'] === undefined) && (toleration['effect'] === 'NoExecute' || toleration['effect'] === undefined)))
    .map((key) => ({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }));
  if (added.length > 0) spec['tolerations'] = [...(Array.isArray(spec['tolerations']) ? spec['tolerations'] : []), ...added];
}

function quantities(container: JsonObject, field: 'limits' | 'requests'): JsonObject {
  const resources = child(container, 'resources');
  return (resources && child(resources, field)) ?? {};
}

/** `status.qosClass` of a Pod, as kube-apiserver sets it on create (cpu and memory only). */
export function qosClass(spec: JsonObject): string {
  const containers = [...objects(spec['initContainers']), ...objects(spec['containers'])];
  let anySet = false;
  let guaranteed = true;
  for (const container of containers) {
    const limits = quantities(container, 'limits');
    const requests = quantities(container, 'requests');
    for (const resource of ['cpu', 'memory']) {
      if (limits[resource] !== undefined || requests[resource] !== undefined) anySet = true;
      if (limits[resource] === undefined || (requests[resource] !== undefined && requests[resource] !== limits[resource])) guaranteed = false;
    }
  }
  if (!anySet) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}
