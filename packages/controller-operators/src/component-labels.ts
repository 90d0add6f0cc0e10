import type { LabelSelector } from '@olm/api';

/** The prefix of the label that marks an object as a component of an Operator: `operators.coreos.com/<operator>: ""`. */
export const componentLabelPrefix = 'operators.coreos.com/';

// A label key's name part: at most 63 characters, alphanumeric at both ends.
const maxNameLength = 63;
const labelName = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
// An Operator is cluster-scoped and named like any object: a DNS subdomain.
const subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * The Operator a Subscription's package makes up in its namespace: `<package>.<namespace>`,
 * cut to the 63 characters a label key allows (as upstream cuts the key), so the Operator's name
 * and the label naming it always agree.
 */
export function operatorNameFor(packageName: string, namespace: string): string {
  const full = namespace === '' ? packageName : `${packageName}.${namespace}`;
  return full.length > maxNameLength ? full.slice(0, maxNameLength).replace(/[^A-Za-z0-9]+$/, '') : full;
}

/** Why a name cannot name an Operator and its component label, or undefined when it can. */
export function invalidOperatorName(name: string): string | undefined {
  if (name === '' || name.length > maxNameLength || !labelName.test(name) || !subdomain.test(name)) {
    return `"${name}" cannot name an Operator: it must be at most ${maxNameLength} lowercase letters, digits, '-' and '.', starting and ending with a letter or digit`;
  }
  return undefined;
}

/** The component label key of an Operator (its name cut to 63 characters, as upstream). */
export function componentLabelKey(operatorName: string): string {
  return componentLabelPrefix + operatorName.slice(0, maxNameLength);
}

/** The Operators an object is a component of, from its `operators.coreos.com/<operator>` labels. */
export function operatorNamesIn(labels: Readonly<Record<string, string>> | undefined): string[] {
  return Object.keys(labels ?? {})
    .filter((key) => key.startsWith(componentLabelPrefix) && key.length > componentLabelPrefix.length)
    .map((key) => key.slice(componentLabelPrefix.length));
}

/** `status.components.labelSelector`: objects carrying the Operator's component label. */
export function componentLabelSelector(operatorName: string): LabelSelector {
  return { matchExpressions: [{ key: componentLabelKey(operatorName), operator: 'Exists' }] };
}
