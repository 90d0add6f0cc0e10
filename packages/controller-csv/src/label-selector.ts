/** A Kubernetes LabelSelector (`matchLabels` and `matchExpressions`), as in OperatorGroup `spec.selector`. */
export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: ReadonlyArray<{
    readonly key: string;
    readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | string;
    readonly values?: readonly string[];
  }>;
}

export function isEmptySelector(selector: LabelSelector | null | undefined): boolean {
  return (
    !selector ||
    (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0)
  );
}

/** True when `labels` match every requirement; an unknown operator matches nothing (fails closed). */
export function matchesLabelSelector(selector: LabelSelector, labels: Readonly<Record<string, string>> | undefined): boolean {
  const actual = labels ?? {};
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (actual[key] !== value) return false;
  }
  for (const expression of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(actual, expression.key);
    const values = expression.values ?? [];
    switch (expression.operator) {
      case 'In':
        if (!has || !values.includes(actual[expression.key]!)) return false;
        break;
      case 'NotIn':
        if (has && values.includes(actual[expression.key]!)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}
