import { validateBuiltinFields } from './builtin-validation.js';
import { validateCrd } from './crd-types.js';
import type { FieldProblem } from './errors.js';
import { deepEqual, isJsonObject, type JsonObject, type KubeObject } from './kube-object.js';
import type { NameRule } from './object-names.js';
import type { ResourceType } from './resource-type.js';

/** What kube-apiserver's per-kind strategies do on create and update, for the built-ins served here. */
export function nameRuleFor(type: ResourceType): NameRule {
  if (type.group === '' && type.plural === 'namespaces') return 'label';
  if (type.group === 'rbac.authorization.k8s.io') return 'path-segment';
  return 'subdomain';
}

let nextClusterIp = 1;

function allocateClusterIp(): string {
  const value = nextClusterIp++;
  return `10.96.${Math.floor(value / 250) % 250}.${(value % 250) + 1}`;
}

/** Defaults a built-in object (called on create and on update). */
export function applyBuiltinDefaults(type: ResourceType, object: KubeObject, isCreate: boolean): void {
  const key = `${type.group}/${type.plural}`;
  const spec = isJsonObject(object['spec']) ? object['spec'] : undefined;
  switch (key) {
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
        for (const [name, value] of Object.entries(stringData)) data[name] = Buffer.from(String(value)).toString('base64');
        object['data'] = data;
        delete object['stringData'];
      }
      break;
    }
    case '/services': {
      const serviceSpec: JsonObject = spec ?? {};
      serviceSpec['type'] ??= 'ClusterIP';
      serviceSpec['sessionAffinity'] ??= 'None';
      if (serviceSpec['type'] !== 'ExternalName' && serviceSpec['clusterIP'] === undefined) {
        const ip = allocateClusterIp();
        serviceSpec['clusterIP'] = ip;
        serviceSpec['clusterIPs'] = [ip];
      }
      if (Array.isArray(serviceSpec['ports'])) {
        for (const port of serviceSpec['ports']) {
          if (isJsonObject(port)) {
            port['protocol'] ??= 'TCP';
            // 0 and "" are what a Go client sends for an unset IntOrString.
            if (port['targetPort'] === undefined || port['targetPort'] === 0 || port['targetPort'] === '') port['targetPort'] = port['port'];
          }
        }
      }
      object['spec'] = serviceSpec;
      break;
    }
    case '/pods': {
      if (spec) {
        spec['restartPolicy'] ??= 'Always';
        spec['dnsPolicy'] ??= 'ClusterFirst';
        spec['serviceAccountName'] ??= 'default';
      }
      if (isCreate) object['status'] = { phase: 'Pending' };
      break;
    }
    case 'apps/deployments': {
      if (spec) {
        spec['replicas'] ??= 1;
        spec['revisionHistoryLimit'] ??= 10;
        spec['progressDeadlineSeconds'] ??= 600;
        // kubectl create deployment sends `strategy: {}`.
        const strategy: JsonObject = isJsonObject(spec['strategy']) ? spec['strategy'] : {};
        strategy['type'] ??= 'RollingUpdate';
        if (strategy['type'] === 'RollingUpdate') strategy['rollingUpdate'] ??= { maxUnavailable: '25%', maxSurge: '25%' };
        spec['strategy'] = strategy;
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
        if (Array.isArray(spec['versions'])) for (const version of spec['versions']) if (isJsonObject(version)) version['served'] ??= true;
      }
      break;
    }
    case 'apps/replicasets': {
      if (spec) spec['replicas'] ??= 1;
      break;
    }
    default:
      break;
  }
}

/** Validation a built-in needs for OLM's use (a selector on workloads, a roleRef on bindings, …). */
export function validateBuiltin(type: ResourceType, object: KubeObject): FieldProblem[] {
  const key = `${type.group}/${type.plural}`;
  const problems: FieldProblem[] = validateBuiltinFields(key, object);
  const spec = object['spec'];
  if (key === 'apiextensions.k8s.io/customresourcedefinitions') return validateCrd(object);
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
