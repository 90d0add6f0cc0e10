import { OlmError } from '@olm/core';
import { isEmptyLabelSelector, matchesLabelSelector, type LabelSelector } from '@olm/label-selector';

export interface OperatorGroupTargetSpec {
  readonly targetNamespaces?: readonly string[];
  readonly selector?: LabelSelector | null;
}

export interface NamespaceLabels {
  readonly name: string;
  readonly labels?: Readonly<Record<string, string>>;
}

/**
 * An OperatorGroup's target namespaces, sorted: the explicit list when given (the selector is then
 * ignored), all namespaces (`[""]`) when there is no selector or it is empty, else the namespaces
 * whose labels match (possibly none).
 */
export function resolveTargetNamespaces(spec: OperatorGroupTargetSpec, namespaces: readonly NamespaceLabels[]): string[] {
  const explicit = spec.targetNamespaces ?? [];
  if (explicit.length > 0) {
    if (explicit.includes('')) {
      throw new OlmError(
        'OLM_CSV_INVALID_TARGET_NAMESPACES',
        'spec.targetNamespaces must not contain "" (all namespaces); omit targetNamespaces and selector to target all namespaces',
      );
    }
    return [...new Set(explicit)].sort();
  }
  if (isEmptyLabelSelector(spec.selector)) return [''];
  return namespaces
    .filter((namespace) => matchesLabelSelector(spec.selector!, namespace.labels))
    .map((namespace) => namespace.name)
    .sort();
}

/** Whether two target lists are the same set (upstream compares order-insensitively). */
export function sameNamespaceSet(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  const left = new Set(a ?? []);
  const right = new Set(b ?? []);
  return left.size === right.size && [...left].every((namespace) => right.has(namespace));
}
