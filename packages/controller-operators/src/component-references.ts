import type { Components, ConditionStatus, OperatorComponentCondition, RichReference } from '@olm/api';
import type { CachedObject } from '@olm/core';
import { componentKinds, type ComponentKind } from './component-kinds.js';
import { componentLabelSelector } from './component-labels.js';

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** A component condition with only the fields the Operator schema keeps (others would be pruned, and differ on every compare). */
function componentCondition(raw: unknown): OperatorComponentCondition | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const source = raw as Record<string, unknown>;
  const type = text(source.type);
  const status = text(source.status);
  if (!type || !status) return undefined;
  const condition: OperatorComponentCondition = { type, status: status as ConditionStatus };
  const reason = text(source.reason);
  const message = text(source.message);
  const lastUpdateTime = text(source.lastUpdateTime);
  const lastTransitionTime = text(source.lastTransitionTime);
  if (reason) condition.reason = reason;
  if (message) condition.message = message;
  if (lastUpdateTime) condition.lastUpdateTime = lastUpdateTime;
  if (lastTransitionTime) condition.lastTransitionTime = lastTransitionTime;
  return condition;
}

/**
 * The conditions of a component: its `status.conditions`; for a ClusterServiceVersion, whose status
 * has a phase instead, one condition whose type is the phase (upstream's projection).
 */
export function componentConditions(object: CachedObject): OperatorComponentCondition[] {
  const status = object.status as Record<string, unknown> | undefined;
  if (object.kind === 'ClusterServiceVersion') {
    if (typeof status?.phase !== 'string' || status.phase === '') return [];
    const condition = componentCondition({ ...status, type: status.phase, status: 'True' });
    return condition ? [condition] : [];
  }
  const conditions = Array.isArray(status?.conditions) ? status.conditions : [];
  return conditions.map(componentCondition).filter((condition): condition is OperatorComponentCondition => condition !== undefined);
}

/** The reference `status.components.refs` holds for a component: kind, apiVersion, namespace, name and conditions. */
export function componentReference(kind: ComponentKind, object: CachedObject): RichReference {
  const conditions = componentConditions({ ...object, kind: kind.kind });
  return {
    apiVersion: kind.apiVersion,
    kind: kind.kind,
    name: object.metadata?.name ?? '',
    ...(kind.namespaced && object.metadata?.namespace ? { namespace: object.metadata.namespace } : {}),
    ...(conditions.length > 0 ? { conditions } : {}),
  };
}

const kindOrder = new Map(componentKinds.map((kind, index) => [`${kind.apiVersion}/${kind.kind}`, index]));

/** `status.components` of an Operator: its label selector and its components' references in a stable order (kind, namespace, name). */
export function operatorComponents(operatorName: string, components: ReadonlyArray<{ readonly kind: ComponentKind; readonly object: CachedObject }>): Components {
  const refs = components
    .map(({ kind, object }) => componentReference(kind, object))
    .sort(
      (a, b) =>
        (kindOrder.get(`${a.apiVersion}/${a.kind}`) ?? 0) - (kindOrder.get(`${b.apiVersion}/${b.kind}`) ?? 0) ||
        (a.namespace ?? '').localeCompare(b.namespace ?? '') ||
        (a.name ?? '').localeCompare(b.name ?? ''),
    );
  return { labelSelector: componentLabelSelector(operatorName), ...(refs.length > 0 ? { refs } : {}) };
}
