import { describe, expect, it } from 'vitest';
import { StatusError } from './errors.js';
import { decodeKubernetesProtobuf } from './protobuf-body.js';

// Bytes built by hand: `k8s\0`, then runtime.Unknown { typeMeta = 1 { apiVersion = 1, kind = 2 }, raw = 2, contentEncoding = 3, contentType = 4 }.
const varint = (value: number): number[] => (value < 0x80 ? [value] : [(value & 0x7f) | 0x80, ...varint(value >> 7)]);
const len = (field: number, ...payload: number[][]): number[] => {
  const body = payload.flat();
  return [...varint(field * 8 + 2), ...varint(body.length), ...body];
};
const str = (field: number, text: string): number[] => len(field, [...Buffer.from(text, 'utf8')]);
const magic = [0x6b, 0x38, 0x73, 0x00];
const envelope = (apiVersion: string, kind: string, raw: number[], ...extra: number[][]): Buffer =>
  Buffer.from([...magic, ...len(1, str(1, apiVersion), str(2, kind)), ...len(2, raw), ...extra.flat()]);

function failure(body: Buffer, warnings: string[] = []): StatusError {
  try {
    decodeKubernetesProtobuf(body, warnings);
  } catch (error) {
    if (error instanceof StatusError) return error;
    throw error;
  }
  throw new Error('expected an StatusError');
}

describe('decodeKubernetesProtobuf', () => {
  it('unwraps the envelope into the object a JSON client sends, apiVersion and kind first', () => {
    // ConfigMap { metadata = 1 { name = 1 }, data = 2 (map entry), immutable = 4 }
    const raw = [...len(1, str(1, 'settings')), ...len(2, str(1, 'mode'), str(2, 'fast')), 0x20, 0x00];
    const object = decodeKubernetesProtobuf(envelope('v1', 'ConfigMap', raw, str(4, '')));
    expect(object).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { mode: 'fast' }, immutable: false });
    expect(Object.keys(object).slice(0, 2)).toEqual(['apiVersion', 'kind']);
  });

  it('decodes DeleteOptions whatever group version a typed client tags them with', () => {
    expect(decodeKubernetesProtobuf(envelope('apps/v1', 'DeleteOptions', [...str(4, 'Orphan'), ...str(5, 'All')]))).toEqual({
      apiVersion: 'apps/v1',
      kind: 'DeleteOptions',
      propagationPolicy: 'Orphan',
      dryRun: ['All'],
    });
  });

  it('reports unknown fields that carried data as warnings', () => {
    const warnings: string[] = [];
    decodeKubernetesProtobuf(envelope('v1', 'Secret', [...len(1, str(1, 's'), str(40, 'future'))]), warnings);
    expect(warnings).toEqual(['protobuf field 40 of ObjectMeta at metadata is not known to this server and was dropped; send the object as JSON to keep it']);
  });

  it.each([
    ['no k8s prefix', 400, Buffer.from('binary'), 'the protobuf body does not start with the 4-byte prefix "k8s\\x00" ("bina")'],
    ['a truncated envelope', 400, Buffer.from([...magic, 0x0a, 0x09, 0x0a]), 'error decoding the protobuf envelope (runtime.Unknown): truncated: 9 bytes announced, 1 left at byte 5'],
    ['no kind', 400, Buffer.from([...magic, ...len(1, str(1, 'v1'))]), 'has no apiVersion or kind'],
    ['a truncated object', 400, envelope('v1', 'Namespace', [0x0a, 0x05, 0x0a]), 'error decoding protobuf Namespace (v1): metadata (protobuf field 1 of Namespace): truncated: 5 bytes announced, 1 left at byte'],
    ['a kind without a schema', 415, envelope('apps/v1', 'ReplicaSet', []), 'ReplicaSet (apps/v1) cannot be sent as protobuf to this server, which decodes protobuf only for Namespace, ConfigMap'],
    ['a custom resource', 415, envelope('example.com/v1', 'Widget', []), 'send it as JSON instead'],
    ['a compressed object', 415, envelope('v1', 'ConfigMap', [], str(3, 'gzip')), 'content encoding "gzip" is not supported'],
    ['JSON inside the envelope', 415, envelope('v1', 'ConfigMap', [], str(4, 'application/json')), 'the protobuf envelope holds "application/json"'],
  ])('answers %s with a clear %i', (_name, code, body, message) => {
    const error = failure(body);
    expect(error.code).toBe(code);
    expect(error.message).toContain(message);
  });
});
