import type { FieldProblem } from './errors.js';
import { isJsonObject, type JsonObject, type KubeObject } from './kube-object.js';
import { validateObjectName } from './object-names.js';

/**
 * kube-apiserver's validation of the built-in fields OLM and kubectl write: pod specs (in Pods and
 * workload templates), Service ports, RBAC rules, bindings' roleRef and subjects. Messages as
 * kube-apiserver words them (`pkg/apis/core/validation`, `pkg/apis/rbac/validation`).
 */
export function validateBuiltinFields(key: string, object: KubeObject): FieldProblem[] {
  const spec = isJsonObject(object['spec']) ? object['spec'] : undefined;
  switch (key) {
    case '/pods':
      return spec ? validatePodSpec(spec, 'spec') : [];
    case 'apps/deployments':
    case 'apps/replicasets': {
      const template = spec && isJsonObject(spec['template']) ? spec['template'] : undefined;
      const podSpec = template && isJsonObject(template['spec']) ? template['spec'] : undefined;
      return podSpec ? validatePodSpec(podSpec, 'spec.template.spec') : [{ field: 'spec.template.spec.containers', reason: 'FieldValueRequired', message: 'Required value' }];
    }
    case '/services':
      return spec ? validateServicePorts(spec) : [];
    case 'rbac.authorization.k8s.io/roles':
      return validateRules(object['rules'], true);
    case 'rbac.authorization.k8s.io/clusterroles':
      return validateRules(object['rules'], false);
    case 'rbac.authorization.k8s.io/rolebindings':
      return validateBinding(object, true);
    case 'rbac.authorization.k8s.io/clusterrolebindings':
      return validateBinding(object, false);
    default:
      return [];
  }
}

const required = (field: string): FieldProblem => ({ field, reason: 'FieldValueRequired', message: 'Required value' });
const duplicate = (field: string, value: string): FieldProblem => ({ field, reason: 'FieldValueDuplicate', message: `Duplicate value: ${JSON.stringify(value)}` });
const unsupported = (field: string, value: unknown, supported: readonly string[]): FieldProblem => ({
  field,
  reason: 'FieldValueNotSupported',
  message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((item) => JSON.stringify(item)).join(', ')}`,
});
const objects = (value: unknown): JsonObject[] => (Array.isArray(value) ? value.filter(isJsonObject) : []);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function validatePodSpec(spec: JsonObject, path: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const volumes = new Set<string>();
  objects(spec['volumes']).forEach((volume, index) => {
    const field = `${path}.volumes[${index}].name`;
    const name = text(volume['name']);
    if (name === '') problems.push(required(field));
    else if (volumes.has(name)) problems.push(duplicate(field, name));
    else problems.push(...validateObjectName(name, 'label', field));
    volumes.add(name);
  });
  const containers = objects(spec['containers']);
  if (containers.length === 0) problems.push(required(`${path}.containers`));
  const names = new Set<string>();
  for (const list of ['initContainers', 'containers'] as const) {
    objects(spec[list]).forEach((container, index) => problems.push(...validateContainer(container, `${path}.${list}[${index}]`, names, volumes)));
  }
  return problems;
}

function validateContainer(container: JsonObject, path: string, names: Set<string>, volumes: ReadonlySet<string>): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const name = text(container['name']);
  if (name === '') problems.push(required(`${path}.name`));
  else if (names.has(name)) problems.push(duplicate(`${path}.name`, name));
  else problems.push(...validateObjectName(name, 'label', `${path}.name`));
  names.add(name);
  if (text(container['image']).trim() === '') problems.push(required(`${path}.image`));
  objects(container['ports']).forEach((port, index) => {
    const field = `${path}.ports[${index}]`;
    problems.push(...validatePortNumber(port['containerPort'], `${field}.containerPort`));
    if (port['protocol'] !== undefined && !protocols.includes(String(port['protocol']))) problems.push(unsupported(`${field}.protocol`, port['protocol'], protocols));
  });
  objects(container['env']).forEach((variable, index) => {
    if (text(variable['name']) === '') problems.push(required(`${path}.env[${index}].name`));
  });
  objects(container['volumeMounts']).forEach((mount, index) => {
    const field = `${path}.volumeMounts[${index}]`;
    const volume = text(mount['name']);
    if (volume === '') problems.push(required(`${field}.name`));
    else if (!volumes.has(volume)) problems.push({ field: `${field}.name`, reason: 'FieldValueNotFound', message: `Not found: ${JSON.stringify(volume)}` });
    if (text(mount['mountPath']) === '') problems.push(required(`${field}.mountPath`));
  });
  return problems;
}

const protocols = ['SCTP', 'TCP', 'UDP'];

function validatePortNumber(value: unknown, field: string): FieldProblem[] {
  if (value === undefined || value === 0) return [required(field)];
  if (typeof value === 'number' && value >= 1 && value <= 65535) return [];
  return [{ field, reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(value)}: must be between 1 and 65535, inclusive` }];
}

function validateServicePorts(spec: JsonObject): FieldProblem[] {
  const ports = objects(spec['ports']);
  const headless = spec['clusterIP'] === 'None';
  if (ports.length === 0) return spec['type'] === 'ExternalName' || headless ? [] : [required('spec.ports')];
  const problems: FieldProblem[] = [];
  const names = new Set<string>();
  ports.forEach((port, index) => {
    const field = `spec.ports[${index}]`;
    const name = text(port['name']);
    if (ports.length > 1 && name === '') problems.push(required(`${field}.name`));
    else if (name !== '' && names.has(name)) problems.push(duplicate(`${field}.name`, name));
    names.add(name);
    problems.push(...validatePortNumber(port['port'], `${field}.port`));
    if (port['protocol'] !== undefined && !protocols.includes(String(port['protocol']))) problems.push(unsupported(`${field}.protocol`, port['protocol'], protocols));
  });
  return problems;
}

function validateRules(rules: unknown, namespaced: boolean): FieldProblem[] {
  const problems: FieldProblem[] = [];
  objects(rules).forEach((rule, index) => {
    const field = `rules[${index}]`;
    const count = (name: string) => (Array.isArray(rule[name]) ? (rule[name] as unknown[]).length : 0);
    if (count('verbs') === 0) problems.push({ ...required(`${field}.verbs`), message: 'Required value: verbs must contain at least one value' });
    if (count('nonResourceURLs') > 0) {
      if (namespaced) problems.push({ field: `${field}.nonResourceURLs`, reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(rule['nonResourceURLs'])}: namespaced rules cannot apply to non-resource URLs` });
      else if (count('apiGroups') > 0 || count('resources') > 0) {
        problems.push({ field: `${field}.nonResourceURLs`, reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(rule['nonResourceURLs'])}: rules cannot apply to both regular resources and non-resource URLs` });
      }
      return;
    }
    if (count('apiGroups') === 0) problems.push({ ...required(`${field}.apiGroups`), message: 'Required value: resource rules must supply at least one api group' });
    if (count('resources') === 0) problems.push({ ...required(`${field}.resources`), message: 'Required value: resource rules must supply at least one resource' });
  });
  return problems;
}

const rbacGroup = 'rbac.authorization.k8s.io';

function validateBinding(object: KubeObject, namespaced: boolean): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const roleRef = isJsonObject(object['roleRef']) ? object['roleRef'] : {};
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(text(roleRef['kind']))) problems.push(unsupported('roleRef.kind', roleRef['kind'] ?? '', kinds));
  if (text(roleRef['apiGroup']) !== rbacGroup) problems.push(unsupported('roleRef.apiGroup', roleRef['apiGroup'] ?? '', [rbacGroup]));
  objects(object['subjects']).forEach((subject, index) => {
    const field = `subjects[${index}]`;
    const kind = text(subject['kind']);
    if (text(subject['name']) === '') problems.push(required(`${field}.name`));
    if (kind === 'ServiceAccount') {
      if (text(subject['apiGroup']) !== '') problems.push(unsupported(`${field}.apiGroup`, subject['apiGroup'], ['']));
      if (!namespaced && text(subject['namespace']) === '') problems.push(required(`${field}.namespace`));
    } else if (kind === 'User' || kind === 'Group') {
      if (text(subject['apiGroup']) !== rbacGroup) problems.push(unsupported(`${field}.apiGroup`, subject['apiGroup'] ?? '', [rbacGroup]));
    } else problems.push(unsupported(`${field}.kind`, subject['kind'] ?? '', ['ServiceAccount', 'User', 'Group']));
  });
  return problems;
}
