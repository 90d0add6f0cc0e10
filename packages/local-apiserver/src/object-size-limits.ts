import { StatusError, type FieldProblem } from './errors.js';
import { isJsonObject, type KubeObject } from './kube-object.js';

/** kube-apiserver's and etcd's bounds on what one stored object may hold. */
export interface ObjectSizeLimits {
  /** Most bytes of a ConfigMap's data + binaryData, or of a Secret's data (kube's MaxSecretSize). */
  readonly maxDataBytes: number;
  /** Most bytes one object takes serialized (etcd's default `--max-request-bytes`, 1.5 MiB). */
  readonly maxStoredObjectBytes: number;
}

export const defaultObjectSizeLimits: ObjectSizeLimits = Object.freeze({
  maxDataBytes: 1024 * 1024,
  maxStoredObjectBytes: 1.5 * 1024 * 1024,
});

/** How many bytes a base64 value decodes to (Secret data, ConfigMap binaryData), without decoding it. */
function decodedLength(value: string): number {
  const padding = value.endsWith('==') ? 2 : value.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((value.length * 3) / 4) - padding);
}

function totalBytes(map: unknown, base64: boolean): number {
  if (!isJsonObject(map)) return 0;
  let total = 0;
  for (const value of Object.values(map)) {
    if (typeof value === 'string') total += base64 ? decodedLength(value) : Buffer.byteLength(value);
  }
  return total;
}

/** kube's ValidateConfigMap / ValidateSecret total size check, for `<group>/<plural>` keys. */
export function dataSizeProblems(key: string, object: KubeObject, maxDataBytes: number): FieldProblem[] {
  let total: number;
  if (key === '/configmaps') total = totalBytes(object['data'], false) + totalBytes(object['binaryData'], true);
  else if (key === '/secrets') total = totalBytes(object['data'], true);
  else return [];
  if (total <= maxDataBytes) return [];
  return [{ field: 'data', reason: 'FieldValueTooLong', message: `Too long: must have at most ${maxDataBytes} bytes` }];
}

/**
 * What kube-apiserver answers when etcd refuses a value over `--max-request-bytes`: a 500 Status with
 * etcd's words and no reason (kubernetes/kubernetes#112152). The rest of the message is ours: how big, which limit.
 */
export function storedObjectTooLarge(bytes: number, limit: number): StatusError {
  return new StatusError(
    500,
    '',
    `etcdserver: request is too large: the object takes ${bytes} bytes serialized, more than the limit of ${limit} bytes (the server option maxStoredObjectBytes, as etcd's --max-request-bytes)`,
  );
}
