import { isValidVersion, parseVersionTolerant } from '@olm/semver-range';
import type { ManifestObject } from '../bundle-content.js';
import type { ProblemList } from '../bundle-problem.js';
import { ownedApis } from './provided-apis.js';
import { isEmpty, isObject } from '../json-shapes.js';

const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const installModeTypes = ['OwnNamespace', 'SingleNamespace', 'MultiNamespace', 'AllNamespaces'];

/** Why a CSV name (or `spec.replaces`) is not `<operator>.(v)X.Y.Z`, or undefined. */
function csvNameError(name: string): string | undefined {
  if (name.length > 253 || !dns1123Subdomain.test(name)) return `${JSON.stringify(name)} is not a DNS-1123 subdomain (lower case alphanumerics, '-' and '.', at most 253 characters)`;
  const dot = name.indexOf('.');
  if (dot === -1) return `${JSON.stringify(name)} must have the format {operator name}.(v)X.Y.Z`;
  const version = name.slice(dot + 1).replace(/^v+/, '');
  return isValidVersion(version) ? undefined : `${JSON.stringify(name)} contains an invalid semver ${JSON.stringify(name.slice(dot + 1))}`;
}

function checkNames(file: string, csv: ManifestObject, problems: ProblemList): void {
  const name = isObject(csv.metadata) && typeof csv.metadata.name === 'string' ? csv.metadata.name : '';
  const nameError = csvNameError(name);
  if (nameError) problems.error('csv-name', file, 'metadata.name', nameError, 'name the CSV <package>.v<version>, e.g. acme-operator.v1.2.3');
  const spec = isObject(csv.spec) ? csv.spec : {};
  if (typeof spec.replaces === 'string' && spec.replaces !== '') {
    const replacesError = csvNameError(spec.replaces);
    if (replacesError) problems.error('csv-replaces', file, 'spec.replaces', replacesError, 'name the CSV this one replaces, <package>.v<version>');
  }
  if (typeof spec.version !== 'string' || !isValidVersion(spec.version)) {
    problems.error('csv-version', file, 'spec.version', `${spec.version === undefined ? 'is missing' : `${JSON.stringify(spec.version)} is not a semantic version`}`, 'set it to MAJOR.MINOR.PATCH (no leading v)');
  }
  if (typeof spec.minKubeVersion === 'string' && spec.minKubeVersion !== '') {
    try {
      parseVersionTolerant(spec.minKubeVersion);
    } catch {
      problems.error('csv-min-kube-version', file, 'spec.minKubeVersion', `${JSON.stringify(spec.minKubeVersion)} is not a version`, 'set it to a Kubernetes version such as 1.25.0');
    }
  }
}

/** Mandatory fields are errors, optional ones a warning each, as operator-sdk's CSV validator reports them. */
function checkFields(file: string, spec: Record<string, unknown>, problems: ProblemList): void {
  if (isEmpty(spec.displayName)) problems.error('csv-fields', file, 'spec.displayName', 'is missing', 'give the operator a display name');
  for (const optional of ['description', 'icon', 'keywords', 'maintainers', 'provider', 'links', 'maturity']) {
    if (isEmpty(spec[optional])) problems.warning('csv-fields', file, `spec.${optional}`, 'is missing (optional)', `set spec.${optional}; catalogs and consoles show it`);
  }
}

function checkInstallStrategy(file: string, spec: Record<string, unknown>, problems: ProblemList): void {
  const install = spec.install;
  if (!isObject(install)) {
    problems.error('csv-install-strategy', file, 'spec.install', 'is missing', 'add spec.install with strategy: deployment and the operator Deployments under spec.install.spec.deployments');
    return;
  }
  if (install.strategy !== 'deployment') {
    problems.error('csv-install-strategy', file, 'spec.install.strategy', `is ${JSON.stringify(install.strategy)}, not "deployment"`, 'set it to deployment, the only strategy OLM runs');
  }
  const deployments = isObject(install.spec) ? install.spec.deployments : undefined;
  if (!Array.isArray(deployments)) {
    problems.error('csv-install-strategy', file, 'spec.install.spec.deployments', 'is missing', 'list the operator Deployments (name and spec)');
    return;
  }
  for (const [index, deployment] of deployments.entries()) {
    if (!isObject(deployment) || typeof deployment.name !== 'string' || deployment.name === '' || !isObject(deployment.spec)) {
      problems.error('csv-install-strategy', file, `spec.install.spec.deployments[${index}]`, 'has no name or no spec', 'give each deployment a name and a Deployment spec');
    }
  }
}

function checkInstallModes(file: string, spec: Record<string, unknown>, problems: ProblemList): void {
  const modes = spec.installModes;
  if (!Array.isArray(modes) || modes.length === 0) {
    problems.error('csv-install-modes', file, 'spec.installModes', 'install modes not found', `list the install modes (${installModeTypes.join(', ')}) with supported: true or false`);
    return;
  }
  const seen = new Set<string>();
  let anySupported = false;
  for (const [index, mode] of modes.entries()) {
    const type = isObject(mode) ? mode.type : undefined;
    if (typeof type !== 'string' || !installModeTypes.includes(type)) {
      problems.error('csv-install-modes', file, `spec.installModes[${index}].type`, `${JSON.stringify(type)} is not an install mode`, `use one of ${installModeTypes.join(', ')}`);
    } else if (seen.has(type)) {
      problems.error('csv-install-modes', file, `spec.installModes[${index}].type`, `duplicate install mode ${type}`, 'list each install mode once');
    }
    if (typeof type === 'string') seen.add(type);
    if (isObject(mode) && mode.supported === true) anySupported = true;
  }
  if (!anySupported) problems.error('csv-install-modes', file, 'spec.installModes', 'none of the install modes is supported', 'set supported: true on at least one install mode');
}

/** `alm-examples` (or `olm.examples`): JSON custom resources, each of an API the CSV owns; each owned API should have one. */
function checkExamples(file: string, csv: ManifestObject, problems: ProblemList): void {
  const annotations = isObject(csv.metadata) && isObject(csv.metadata.annotations) ? csv.metadata.annotations : {};
  const key = 'alm-examples' in annotations ? 'alm-examples' : 'olm.examples' in annotations ? 'olm.examples' : undefined;
  if (key === undefined) {
    problems.warning('csv-examples', file, 'metadata.annotations["alm-examples"]', 'example annotations not found', 'add alm-examples: a JSON list with one example custom resource per owned API');
    return;
  }
  const field = `metadata.annotations["${key}"]`;
  let examples: unknown;
  try {
    examples = JSON.parse(String(annotations[key]));
  } catch (error) {
    problems.error('csv-examples', file, field, `is not JSON: ${(error as Error).message}`, 'write the examples as a JSON list of custom resources');
    return;
  }
  const list = Array.isArray(examples) ? examples : [];
  const owned = ownedApis(csv);
  const key3 = (group: string, version: string, kind: string) => `${group}/${version}/${kind}`;
  const provided = new Set(owned.map((api) => key3(api.group, api.version, api.kind)));
  const exampled = new Set<string>();
  for (const [index, example] of list.entries()) {
    const apiVersion = isObject(example) && typeof example.apiVersion === 'string' ? example.apiVersion : '';
    const kind = isObject(example) && typeof example.kind === 'string' ? example.kind : '';
    const slash = apiVersion.lastIndexOf('/');
    const gvk = key3(slash === -1 ? '' : apiVersion.slice(0, slash), apiVersion.slice(slash + 1), kind);
    exampled.add(gvk);
    if (!provided.has(gvk)) problems.error('csv-examples', file, `${field}[${index}]`, `example ${kind} (${apiVersion}) is not an API the CSV owns`, 'give examples only of the owned CRDs and API services, or own that API');
  }
  for (const api of owned) {
    if (!exampled.has(key3(api.group, api.version, api.kind))) {
      problems.warning('csv-examples', file, field, `owned API ${api.kind} (${api.group}/${api.version}) has no example`, 'add an example custom resource of it');
    }
  }
}

/** The rules operator-sdk's CSV validator applies: names, version, mandatory fields, install strategy and modes, examples. */
export function checkCsv(file: string, csv: ManifestObject, problems: ProblemList): void {
  const spec = isObject(csv.spec) ? csv.spec : {};
  checkNames(file, csv, problems);
  checkFields(file, spec, problems);
  checkInstallStrategy(file, spec, problems);
  checkInstallModes(file, spec, problems);
  checkExamples(file, csv, problems);
}
