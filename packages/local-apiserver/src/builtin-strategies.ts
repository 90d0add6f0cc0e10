import { validateBuiltinFields } from './builtin-validation.js';
import { recordStorageVersion, storedVersionProblems } from './crd-stored-versions.js';
import { validateCrd } from './crd-types.js';
import type { FieldProblem } from './errors.js';
import { deepEqual, isJsonObject, setField, type JsonObject, type KubeObject } from './kube-object.js';
import type { NameRule } from './object-names.js';
import { defaultPod, defaultPodSpec, qosClass } from './pod-spec-defaults.js';
import type { ResourceType } from './resource-type.js';

/** What kube-apiserver's per-kind strategies do on create and update, for the built-ins served here. */
export function nameRuleFor(type: ResourceType): NameRule {
  if (type.group === '' && type.plural === 'namespaces') return 'label';
  if (type.group === 'rbac.authorization.k8s.io') return 'path-segment';
  return 'subdomain';
}

let nextClusterIp = 1;
let nextNodePort = 30000;

function allocateClusterIp(): string {
  const value = nextClusterIp++;
  return `10.96.${Math.floor(value / 250) % 250}.${(value % 250) + 1}`;
}

function allocateNodePort(): number {
  const port = nextNodePort;
  nextNodePort = nextNodePort >= 32767 ? 30000 : nextNodePort + 1;
  return port;
}

function objectsIn(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.filter(isJsonObject) : [];
}

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === '' || value === 0;
}

/** A pod template's spec gets the PodSpec defaults (Deployments, ReplicaSets). */
function defaultTemplate(spec: JsonObject | undefined): void {
  const template = spec && isJsonObject(spec['template']) ? spec['template'] : undefined;
  if (template && isJsonObject(template['spec'])) defaultPodSpec(template['spec']);
}

/**
 * Service defaults (SetDefaults_Service) and what the service registry allocates: cluster IPs, IP
 * families, node ports. An update keeps the allocated values the new object leaves out.
 */
function defaultService(object: KubeObject, previous: KubeObject | undefined): void {
  const spec: JsonObject = isJsonObject(object['spec']) ? object['spec'] : {};
  object['spec'] = spec;
  const before = previous && isJsonObject(previous['spec']) ? previous['spec'] : undefined;
  if (isEmpty(spec['type'])) spec['type'] = 'ClusterIP';
  if (isEmpty(spec['sessionAffinity'])) spec['sessionAffinity'] = 'None';
  if (spec['sessionAffinity'] === 'ClientIP' && !isJsonObject(spec['sessionAffinityConfig'])) spec['sessionAffinityConfig'] = { clientIP: { timeoutSeconds: 10800 } };
  const type = spec['type'];
  const isExternalName = type === 'ExternalName';
  const needsNodePorts = type === 'NodePort' || type === 'LoadBalancer';
  if (!isExternalName && spec['internalTrafficPolicy'] === undefined) spec['internalTrafficPolicy'] = 'Cluster';
  if (needsNodePorts && isEmpty(spec['externalTrafficPolicy'])) spec['externalTrafficPolicy'] = 'Cluster';
  if (type === 'LoadBalancer' && spec['allocateLoadBalancerNodePorts'] === undefined) spec['allocateLoadBalancerNodePorts'] = true;
  const previousPorts = objectsIn(before?.['ports']);
  for (const port of objectsIn(spec['ports'])) {
    if (isEmpty(port['protocol'])) port['protocol'] = 'TCP';
    // 0 and "" are what a Go client sends for an unset IntOrString.
    if (isEmpty(port['targetPort'])) port['targetPort'] = port['port'];
    if (needsNodePorts && isEmpty(port['nodePort'])) {
      const kept = previousPorts.find((old) => old['port'] === port['port'] && (old['protocol'] ?? 'TCP') === port['protocol'])?.['nodePort'];
      port['nodePort'] = typeof kept === 'number' && kept > 0 ? kept : allocateNodePort();
    }
  }
  if (isExternalName) return;
  if (isEmpty(spec['clusterIP'])) {
    const kept = before?.['clusterIP'];
    const keep = typeof kept === 'string' && kept !== '';
    spec['clusterIP'] = keep ? kept : allocateClusterIp();
    spec['clusterIPs'] = keep && Array.isArray(before?.['clusterIPs']) ? before['clusterIPs'] : [spec['clusterIP']];
  } else if (!Array.isArray(spec['clusterIPs']) || spec['clusterIPs'].length === 0) spec['clusterIPs'] = [spec['clusterIP']];
  const headlessWithSelector = spec['clusterIP'] === 'None' && isJsonObject(spec['selector']) && Object.keys(spec['selector']).length > 0;
  if (spec['ipFamilyPolicy'] === undefined || spec['ipFamilyPolicy'] === null) spec['ipFamilyPolicy'] = before?.['ipFamilyPolicy'] ?? (headlessWithSelector ? 'RequireDualStack' : 'SingleStack');
  if (!Array.isArray(spec['ipFamilies']) || spec['ipFamilies'].length === 0) {
    spec['ipFamilies'] = Array.isArray(before?.['ipFamilies']) ? before['ipFamilies'] : [String(spec['clusterIP']).includes(':') ? 'IPv6' : 'IPv4'];
  }
}

/** admissionregistration/v1 webhook defaults (SetDefaults_ValidatingWebhook, _MutatingWebhook, _Rule, _ServiceReference). */
function defaultWebhooks(object: KubeObject, isMutating: boolean): void {
  for (const webhook of objectsIn(object['webhooks'])) {
    if (isEmpty(webhook['failurePolicy'])) webhook['failurePolicy'] = 'Fail';
    if (isEmpty(webhook['matchPolicy'])) webhook['matchPolicy'] = 'Equivalent';
    if (!isJsonObject(webhook['namespaceSelector'])) webhook['namespaceSelector'] = {};
    if (!isJsonObject(webhook['objectSelector'])) webhook['objectSelector'] = {};
    if (webhook['timeoutSeconds'] === undefined || webhook['timeoutSeconds'] === null) webhook['timeoutSeconds'] = 10;
    if (isMutating && isEmpty(webhook['reinvocationPolicy'])) webhook['reinvocationPolicy'] = 'Never';
    for (const rule of objectsIn(webhook['rules'])) if (isEmpty(rule['scope'])) rule['scope'] = '*';
    defaultServicePort(webhook['clientConfig']);
  }
}

/** A webhook or APIService service reference without a port means 443. */
function defaultServicePort(holder: unknown): void {
  const service = isJsonObject(holder) && isJsonObject(holder['service']) ? holder['service'] : undefined;
  if (service && (service['port'] === undefined || service['port'] === null)) service['port'] = 443;
}

/** rbac/v1 defaulting: an empty `roleRef.apiGroup`, and a User or Group subject's, is rbac.authorization.k8s.io. */
function defaultBindingApiGroups(object: KubeObject): void {
  const roleRef = object['roleRef'];
  if (isJsonObject(roleRef) && !roleRef['apiGroup']) roleRef['apiGroup'] = 'rbac.authorization.k8s.io';
  const subjects = object['subjects'];
  if (!Array.isArray(subjects)) return;
  for (const subject of subjects) {
    if (!isJsonObject(subject) || subject['apiGroup']) continue;
    if (subject['kind'] === 'User' || subject['kind'] === 'Group') subject['apiGroup'] = 'rbac.authorization.k8s.io';
    else if (subject['kind'] === 'ServiceAccount') subject['apiGroup'] = '';
  }
}

/** Defaults a built-in object (called on create, and on update with the stored object as `previous`). */
export function applyBuiltinDefaults(type: ResourceType, object: KubeObject, isCreate: boolean, previous?: KubeObject, subresource?: string): void {
  const key = `${type.group}/${type.plural}`;
  const spec = isJsonObject(object['spec']) ? object['spec'] : undefined;
  switch (key) {
    case 'rbac.authorization.k8s.io/rolebindings':
    case 'rbac.authorization.k8s.io/clusterrolebindings':
      defaultBindingApiGroups(object);
      break;
    case '/namespaces': {
      object.metadata.labels = { ...(object.metadata.labels ?? {}), 'kubernetes.io/metadata.name': object.metadata.name ?? '' };
      if (isCreate) {
        object['spec'] = { finalizers: ['kubernetes'] };
        object['status'] = { phase: 'Active' };
      }
      break;
    }
    case '/secrets': {
      object['type'] ??= 'Opaque';
      const stringData = object['stringData'];
      if (isJsonObject(stringData)) {
        const data: JsonObject = isJsonObject(object['data']) ? { ...object['data'] } : {};
        for (const [name, value] of Object.entries(stringData)) setField(data, name, Buffer.from(String(value)).toString('base64'));
        object['data'] = data;
        delete object['stringData'];
      }
      break;
    }
    case '/services':
      defaultService(object, previous);
      break;
    case '/pods': {
      if (spec) defaultPod(spec, isCreate);
      if (isCreate) object['status'] = { phase: 'Pending', qosClass: qosClass(spec ?? {}) };
      break;
    }
    case 'apps/deployments': {
      if (spec) {
        if (spec['replicas'] === undefined || spec['replicas'] === null) spec['replicas'] = 1;
        if (spec['revisionHistoryLimit'] === undefined || spec['revisionHistoryLimit'] === null) spec['revisionHistoryLimit'] = 10;
        if (spec['progressDeadlineSeconds'] === undefined || spec['progressDeadlineSeconds'] === null) spec['progressDeadlineSeconds'] = 600;
        // kubectl create deployment sends `strategy: {}`.
        const strategy: JsonObject = isJsonObject(spec['strategy']) ? spec['strategy'] : {};
        if (isEmpty(strategy['type'])) strategy['type'] = 'RollingUpdate';
        if (strategy['type'] === 'RollingUpdate') {
          const rollingUpdate: JsonObject = isJsonObject(strategy['rollingUpdate']) ? strategy['rollingUpdate'] : {};
          if (rollingUpdate['maxUnavailable'] === undefined || rollingUpdate['maxUnavailable'] === null) rollingUpdate['maxUnavailable'] = '25%';
          if (rollingUpdate['maxSurge'] === undefined || rollingUpdate['maxSurge'] === null) rollingUpdate['maxSurge'] = '25%';
          strategy['rollingUpdate'] = rollingUpdate;
        }
        spec['strategy'] = strategy;
        defaultTemplate(spec);
      }
      break;
    }
    case 'apps/replicasets': {
      if (spec) {
        if (spec['replicas'] === undefined || spec['replicas'] === null) spec['replicas'] = 1;
        defaultTemplate(spec);
      }
      break;
    }
    case 'apiextensions.k8s.io/customresourcedefinitions': {
      if (isCreate) {
        const finalizers = object.metadata.finalizers ?? [];
        if (!finalizers.includes('customresourcecleanup.apiextensions.k8s.io')) object.metadata.finalizers = [...finalizers, 'customresourcecleanup.apiextensions.k8s.io'];
      }
      if (spec) {
        const names = isJsonObject(spec['names']) ? spec['names'] : undefined;
        if (names && typeof names['kind'] === 'string') {
          names['singular'] ??= names['kind'].toLowerCase();
          names['listKind'] ??= `${names['kind']}List`;
        }
        spec['conversion'] ??= { strategy: 'None' };
        const conversion = spec['conversion'];
        if (isJsonObject(conversion) && isJsonObject(conversion['webhook'])) defaultServicePort(conversion['webhook']['clientConfig']);
        if (Array.isArray(spec['versions'])) for (const version of spec['versions']) if (isJsonObject(version)) version['served'] ??= true;
      }
      // A write of the CRD itself records its storage version; a status write may only prune the list.
      if (subresource !== 'status') recordStorageVersion(object);
      break;
    }
    case 'apiregistration.k8s.io/apiservices':
      defaultServicePort(spec);
      break;
    case 'admissionregistration.k8s.io/validatingwebhookconfigurations':
    case 'admissionregistration.k8s.io/mutatingwebhookconfigurations':
      defaultWebhooks(object, type.plural === 'mutatingwebhookconfigurations');
      break;
    case 'networking.k8s.io/networkpolicies': {
      if (spec) {
        if (!Array.isArray(spec['policyTypes']) || spec['policyTypes'].length === 0) {
          spec['policyTypes'] = objectsIn(spec['egress']).length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
        }
        for (const rule of [...objectsIn(spec['ingress']), ...objectsIn(spec['egress'])]) for (const port of objectsIn(rule['ports'])) if (isEmpty(port['protocol'])) port['protocol'] = 'TCP';
      }
      break;
    }
    default:
      break;
  }
}

/** Validation a built-in needs for OLM's use (a selector on workloads, a roleRef on bindings, …). */
export function validateBuiltin(type: ResourceType, object: KubeObject, subresource?: string): FieldProblem[] {
  const key = `${type.group}/${type.plural}`;
  const problems: FieldProblem[] = validateBuiltinFields(key, object);
  const spec = object['spec'];
    // kube-apiserver's CRD status strategy checks metadata and acceptedNames only: storedVersions is checked by writes of the CRD itself.
  if (key === 'apiextensions.k8s.io/customresourcedefinitions') return [...validateCrd(object), ...(subresource === 'status' ? [] : storedVersionProblems(object))];
  if (key === 'apps/deployments' || key === 'apps/replicasets') {
    if (!isJsonObject(spec)) return [{ field: 'spec', reason: 'FieldValueRequired', message: 'Required value' }];
    const selector = spec['selector'];
    if (!isJsonObject(selector)) problems.push({ field: 'spec.selector', reason: 'FieldValueRequired', message: 'Required value' });
    const template = spec['template'];
    const labels = isJsonObject(template) && isJsonObject(template['metadata']) ? template['metadata']['labels'] : undefined;
    const matchLabels = isJsonObject(selector) ? selector['matchLabels'] : undefined;
    if (isJsonObject(matchLabels)) {
      const ok = isJsonObject(labels) && Object.entries(matchLabels).every(([name, value]) => labels[name] === value);
      if (!ok) {
        problems.push({ field: 'spec.template.metadata.labels', reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(labels ?? {})}: \`selector\` does not match template \`labels\`` });
      }
    }
    const replicas = spec['replicas'];
    if (typeof replicas === 'number' && replicas < 0) {
      problems.push({ field: 'spec.replicas', reason: 'FieldValueInvalid', message: `Invalid value: ${replicas}: must be greater than or equal to 0` });
    }
  }
  if (key === 'rbac.authorization.k8s.io/rolebindings' || key === 'rbac.authorization.k8s.io/clusterrolebindings') {
    const roleRef = object['roleRef'];
    if (!isJsonObject(roleRef) || typeof roleRef['name'] !== 'string' || roleRef['name'] === '') {
      problems.push({ field: 'roleRef.name', reason: 'FieldValueRequired', message: 'Required value' });
    }
  }
  if (key === '/secrets' && isJsonObject(object['data'])) {
    for (const [name, value] of Object.entries(object['data'])) {
      if (typeof value !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(value) || value.length % 4 !== 0) {
        problems.push({ field: `data[${name}]`, reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(value)}: illegal base64 data` });
      }
    }
  }
  if (key === '/configmaps' || key === '/secrets') {
    for (const field of ['data', 'binaryData']) {
      const data = object[field];
      if (data !== undefined && !isJsonObject(data)) problems.push({ field, reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(data)}: must be a map` });
      if (isJsonObject(data)) {
        for (const name of Object.keys(data)) {
          if (!/^[-._a-zA-Z0-9]+$/.test(name)) {
            problems.push({ field: `${field}[${name}]`, reason: 'FieldValueInvalid', message: `Invalid value: "${name}": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')` });
          }
        }
      }
    }
  }
  return problems;
}

/** Fields that may not change after create (`spec.selector` of workloads, `roleRef` of bindings). */
export function immutableFieldProblems(type: ResourceType, previous: KubeObject, next: KubeObject): FieldProblem[] {
  const key = `${type.group}/${type.plural}`;
  if (key === 'rbac.authorization.k8s.io/rolebindings' || key === 'rbac.authorization.k8s.io/clusterrolebindings') {
    if (!deepEqual(previous['roleRef'], next['roleRef'])) {
      return [{ field: 'roleRef', reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(next['roleRef'])}: cannot change roleRef` }];
    }
  }
  if (key === 'apiextensions.k8s.io/customresourcedefinitions') {
    const field = (object: KubeObject, name: string): unknown => (isJsonObject(object['spec']) ? object['spec'][name] : undefined);
    if (field(previous, 'group') !== field(next, 'group')) return [{ field: 'spec.group', reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(field(next, 'group'))}: field is immutable` }];
    if (field(previous, 'scope') !== field(next, 'scope')) return [{ field: 'spec.scope', reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(field(next, 'scope'))}: field is immutable` }];
  }
  if (key === 'apps/deployments') {
    const before = isJsonObject(previous['spec']) ? previous['spec']['selector'] : undefined;
    const after = isJsonObject(next['spec']) ? next['spec']['selector'] : undefined;
    if (!deepEqual(before, after)) {
      return [{ field: 'spec.selector', reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(after)}: field is immutable` }];
    }
  }
  if (key === '/configmaps' || key === '/secrets') {
    if (previous['immutable'] === true && (!deepEqual(previous['data'], next['data']) || !deepEqual(previous['binaryData'], next['binaryData']))) {
      return [{ field: 'data', reason: 'FieldValueForbidden', message: 'Forbidden: field is immutable when `immutable` is set' }];
    }
  }
  return [];
}
