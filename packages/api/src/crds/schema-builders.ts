import type { JSONSchemaProps } from '@olm/structural-schema';

// Small builders so the CRD schemas read like the Go types they mirror. Every builder returns a fresh
// object: schemas are data that callers may serialise or mutate.

type Extra = JSONSchemaProps;

export const string = (extra: Extra = {}): JSONSchemaProps => ({ type: 'string', ...extra });
export const boolean = (extra: Extra = {}): JSONSchemaProps => ({ type: 'boolean', ...extra });
export const integer = (extra: Extra = {}): JSONSchemaProps => ({ type: 'integer', ...extra });
export const int32 = (extra: Extra = {}): JSONSchemaProps => ({ type: 'integer', format: 'int32', ...extra });
export const int64 = (extra: Extra = {}): JSONSchemaProps => ({ type: 'integer', format: 'int64', ...extra });
export const dateTime = (extra: Extra = {}): JSONSchemaProps => ({ type: 'string', format: 'date-time', ...extra });

export function object(properties: Record<string, JSONSchemaProps>, required?: string[], extra: Extra = {}): JSONSchemaProps {
  const { description, ...rest } = extra;
  return {
    ...(typeof description === 'string' ? { description } : {}),
    type: 'object',
    ...(required && required.length > 0 ? { required } : {}),
    properties,
    ...rest,
  };
}

export const array = (items: JSONSchemaProps, extra: Extra = {}): JSONSchemaProps => ({ type: 'array', items, ...extra });
export const stringList = (extra: Extra = {}): JSONSchemaProps => array(string(), extra);
export const stringMap = (extra: Extra = {}): JSONSchemaProps => ({ type: 'object', additionalProperties: string(), ...extra });

/** An object OLM passes through untouched (Kubernetes types such as DeploymentSpec, Affinity, Volume). */
export const opaqueObject = (description?: string): JSONSchemaProps => ({
  type: 'object',
  ...(description ? { description } : {}),
  'x-kubernetes-preserve-unknown-fields': true,
});

/** Any JSON value (Go `json.RawMessage`). */
export const anyValue = (): JSONSchemaProps => ({ 'x-kubernetes-preserve-unknown-fields': true });

export const intOrString = (extra: Extra = {}): JSONSchemaProps => ({
  anyOf: [{ type: 'integer' }, { type: 'string' }],
  'x-kubernetes-int-or-string': true,
  ...extra,
});

/** A resource quantity such as `100m`, `1.5Gi` or `2`. */
export const quantity = (): JSONSchemaProps =>
  intOrString({
    pattern: '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
  });

export const labelSelector = (description?: string): JSONSchemaProps =>
  object(
    {
      matchExpressions: array(object({ key: string(), operator: string(), values: stringList({ 'x-kubernetes-list-type': 'atomic' }) }, ['key', 'operator']), {
        'x-kubernetes-list-type': 'atomic',
      }),
      matchLabels: stringMap(),
    },
    undefined,
    { 'x-kubernetes-map-type': 'atomic', ...(description ? { description } : {}) },
  );

export const objectReference = (description?: string): JSONSchemaProps =>
  object(
    {
      apiVersion: string(),
      fieldPath: string(),
      kind: string(),
      name: string(),
      namespace: string(),
      resourceVersion: string(),
      uid: string(),
    },
    undefined,
    { 'x-kubernetes-map-type': 'atomic', ...(description ? { description } : {}) },
  );

/**
 * `metav1.Condition` with the API machinery's own validation. `required` defaults to upstream's; OperatorCondition
 * `spec.overrides` leaves out `lastTransitionTime` (an admin writes an override without one).
 */
export const condition = (required = ['lastTransitionTime', 'message', 'reason', 'status', 'type']): JSONSchemaProps =>
  object(
    {
      lastTransitionTime: dateTime(),
      message: string({ maxLength: 32768 }),
      observedGeneration: int64({ minimum: 0 }),
      reason: string({ maxLength: 1024, minLength: 1, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$' }),
      status: string({ enum: ['True', 'False', 'Unknown'] }),
      type: string({
        maxLength: 316,
        pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
      }),
    },
    required,
  );

export const conditionList = (): JSONSchemaProps =>
  array(condition(), { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] });

export const toleration = (): JSONSchemaProps =>
  object({ effect: string(), key: string(), operator: string(), tolerationSeconds: int64(), value: string() });

export const resourceRequirements = (): JSONSchemaProps =>
  object({
    claims: array(object({ name: string(), request: string() }, ['name']), { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] }),
    limits: { type: 'object', additionalProperties: quantity() },
    requests: { type: 'object', additionalProperties: quantity() },
  });

export const envVar = (): JSONSchemaProps => object({ name: string(), value: string(), valueFrom: opaqueObject() }, ['name']);

export const volumeMount = (): JSONSchemaProps =>
  object(
    {
      mountPath: string(),
      mountPropagation: string(),
      name: string(),
      readOnly: boolean(),
      recursiveReadOnly: string(),
      subPath: string(),
      subPathExpr: string(),
    },
    ['mountPath', 'name'],
  );

export const policyRule = (): JSONSchemaProps =>
  object(
    {
      apiGroups: stringList({ 'x-kubernetes-list-type': 'atomic' }),
      nonResourceURLs: stringList({ 'x-kubernetes-list-type': 'atomic' }),
      resourceNames: stringList({ 'x-kubernetes-list-type': 'atomic' }),
      resources: stringList({ 'x-kubernetes-list-type': 'atomic' }),
      verbs: stringList({ 'x-kubernetes-list-type': 'atomic' }),
    },
    ['verbs'],
  );

/** The root of every CRD schema: apiVersion, kind, metadata, spec, status. */
export function resourceRoot(description: string, spec: JSONSchemaProps, status: JSONSchemaProps, required: string[] = ['metadata']): JSONSchemaProps {
  return object(
    {
      apiVersion: string({ description: 'The versioned schema of this representation of an object.' }),
      kind: string({ description: 'The REST resource this object represents, in CamelCase.' }),
      metadata: { type: 'object' },
      spec,
      status,
    },
    required,
    { description },
  );
}
