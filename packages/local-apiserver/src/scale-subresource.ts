import { badRequest, type FieldProblem } from './errors.js';
import { deepClone, isJsonObject, type JsonObject, type KubeObject } from './kube-object.js';

/**
 * The `scale` subresource: an `autoscaling/v1` Scale view of an object's replica count, which
 * `kubectl scale` (and autoscalers) read and write. Deployments and ReplicaSets have one, and so do
 * custom resources whose CRD declares `subresources.scale`.
 */
export interface ScaleSubresource {
  /** Where the desired replicas live, as a dotted path (`.spec.replicas`). */
  readonly specReplicasPath: string;
  /** Where the observed replicas live (`.status.replicas`). */
  readonly statusReplicasPath: string;
  /** The Scale's `status.selector` for this object (empty when it has none). */
  selector(object: KubeObject): string;
}

export const scaleApiVersion = 'autoscaling/v1';

function segments(path: string): string[] {
  return path.replace(/^\./, '').split('.');
}

function read(object: unknown, path: string): unknown {
  let node = object;
  for (const segment of segments(path)) {
    if (!isJsonObject(node)) return undefined;
    node = node[segment];
  }
  return node;
}

/** Reads a string at a dotted path (a CRD's `labelSelectorPath`); anything else counts as absent. */
export function stringAt(object: unknown, path: string): string {
  const value = read(object, path);
  return typeof value === 'string' ? value : '';
}

function replicasAt(object: KubeObject, path: string): number {
  const value = read(object, path);
  if (value === undefined || value === null) return 0;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw badRequest(`${path} accessor error: ${JSON.stringify(value)} is of the type ${typeof value}, expected int64`);
  return value;
}

/** The Scale of `object`: its identity, desired replicas and observed replicas and selector. */
export function scaleOf(scale: ScaleSubresource, object: KubeObject): KubeObject {
  const { name, namespace, uid, resourceVersion, creationTimestamp } = object.metadata;
  const metadata: JsonObject = { name, ...(namespace !== undefined ? { namespace } : {}), uid, resourceVersion, creationTimestamp };
  const status: JsonObject = { replicas: replicasAt(object, scale.statusReplicasPath) };
  const selector = scale.selector(object);
  if (selector !== '') status['selector'] = selector;
  return { kind: 'Scale', apiVersion: scaleApiVersion, metadata: metadata as KubeObject['metadata'], spec: { replicas: replicasAt(object, scale.specReplicasPath) }, status };
}

/**
 * The desired replicas a Scale written by a client asks for, or the problems with it
 * (a missing `spec.replicas` means 0, as the Go zero value does).
 */
export function requestedReplicas(body: KubeObject): { replicas: number; problems: FieldProblem[] } {
  const spec = body['spec'];
  const value = isJsonObject(spec) ? spec['replicas'] : undefined;
  if (value === undefined || value === null) return { replicas: 0, problems: [] };
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw badRequest(`Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal ${typeof value} into Go struct field ScaleSpec.spec.replicas of type int32`);
  }
  if (value < 0) return { replicas: value, problems: [{ field: 'spec.replicas', reason: 'FieldValueInvalid', message: `Invalid value: ${value}: must be greater than or equal to 0` }] };
  return { replicas: value, problems: [] };
}

/** A copy of `object` with its desired replicas set (creating the objects along the path). */
export function withReplicas(scale: ScaleSubresource, object: KubeObject, replicas: number): KubeObject {
  const copy = deepClone(object);
  const path = segments(scale.specReplicasPath);
  let node: JsonObject = copy;
  for (const segment of path.slice(0, -1)) {
    const child = node[segment];
    if (child !== undefined && !isJsonObject(child)) throw badRequest(`spec replicas value cannot be set because ${segment} in ${scale.specReplicasPath} is not an object`);
    node = (node[segment] ??= {}) as JsonObject;
  }
  node[path[path.length - 1] ?? 'replicas'] = replicas;
  return copy;
}
