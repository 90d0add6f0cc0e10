import { describe, expect, it } from 'vitest';
import { builtinProtobufSchemas } from './builtin-protobuf-schemas.js';
import { decodeProtobufMessage, parseProtobufSchemas, ProtobufDecodeError } from './protobuf-decode.js';

// Bytes built by hand: a key is (field << 3 | wire type), then a varint or a length and a payload.
function varint(value: number | bigint): number[] {
  let rest = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  while (rest > 0x7fn) {
    out.push(Number(rest & 0x7fn) | 0x80);
    rest >>= 7n;
  }
  out.push(Number(rest));
  return out;
}
const int = (field: number, value: number | bigint): number[] => [...varint(field * 8), ...varint(value)];
const len = (field: number, ...payload: number[][]): number[] => {
  const body = payload.flat();
  return [...varint(field * 8 + 2), ...varint(body.length), ...body];
};
const str = (field: number, text: string): number[] => len(field, [...Buffer.from(text, 'utf8')]);
const entry = (field: number, key: string, value: number[]): number[] => len(field, str(1, key), value);
const decode = (message: string, ...fields: number[][]) => decodeProtobufMessage(new Uint8Array(fields.flat()), message, schemas);

const schemas = parseProtobufSchemas({
  Thing:
    'name=1 count=2:int32 big=3:int64? flag=4:bool? labels=5{} data=6:bytes{} items=7:Item[] ids=8:int64[] tags=9[] when=10:Time at=11:MicroTime ' +
    'port=12:IntOrString size=13:Quantity child=14:Item ...inner=15:Inner sizes=16:Quantity{} total=17:int64 on=18:bool',
  Item: 'name=1 value=2:int32',
  Inner: 'note=1',
});

describe('decodeProtobufMessage', () => {
  it('omits zero values of Go value fields and keeps those of pointers (`?`)', () => {
    expect(decode('Thing', str(1, ''), int(2, 0), int(17, 0), int(18, 0), int(3, 0), int(4, 0))).toEqual({ big: 0, flag: false });
    expect(decode('Thing', str(1, 'web'), int(2, 7), int(18, 1))).toEqual({ name: 'web', count: 7, on: true });
  });

  it('reads negative int32 values sent as ten-byte varints', () => {
    expect(decode('Thing', int(2, -5))).toEqual({ count: -5 });
  });

  it('decodes maps as repeated entries, whatever their field order, with the last duplicate winning', () => {
    const object = decode(
      'Thing',
      entry(5, 'app', str(2, 'web')),
      len(5, str(2, 'second'), str(1, 'order')),
      entry(5, 'app', str(2, 'db')),
      len(5, str(1, 'novalue')),
      entry(6, 'bin', len(2, [0x00, 0x01, 0xff])),
      len(16, str(1, 'cpu')),
    );
    expect(object).toEqual({ labels: { app: 'db', order: 'second', novalue: '' }, data: { bin: 'AAH/' }, sizes: { cpu: '0' } });
  });

  it('keeps a map key such as __proto__ as a plain entry, as JSON.parse does', () => {
    const object = decode('Thing', entry(5, '__proto__', str(2, 'x')));
    expect(Object.getPrototypeOf(object['labels'])).toBe(Object.prototype);
    expect(Object.entries(object['labels'] as object)).toEqual([['__proto__', 'x']]);
  });

  it('reads repeated numbers packed and unpacked, and keeps empty strings inside lists', () => {
    const object = decode('Thing', int(8, 1), int(8, 2), len(8, varint(3), varint(150)), str(9, ''), str(9, 'a'));
    expect(object).toEqual({ ids: [1, 2, 3, 150], tags: ['', 'a'] });
  });

  it('skips unknown fields of every wire type and warns only about those carrying data', () => {
    const warnings: string[] = [];
    const object = decodeProtobufMessage(
      new Uint8Array([
        ...int(99, 0),
        ...str(98, 'x'),
        ...str(1, 'kept'),
        ...[...varint(90 * 8 + 5), 0, 0, 0, 0],
        ...[...varint(91 * 8 + 1), 1, 0, 0, 0, 0, 0, 0, 0],
        ...len(14, int(97, 5), str(1, 'child')),
      ]),
      'Thing',
      schemas,
      { warnings },
    );
    expect(object).toEqual({ name: 'kept', child: { name: 'child' } });
    expect(warnings).toEqual([
      'protobuf field 98 of Thing at the object is not known to this server and was dropped; send the object as JSON to keep it',
      'protobuf field 91 of Thing at the object is not known to this server and was dropped; send the object as JSON to keep it',
      'protobuf field 97 of Item at child is not known to this server and was dropped; send the object as JSON to keep it',
    ]);
  });

  it('decodes nested and repeated messages, merges a repeated singular message and inlines embedded ones', () => {
    const object = decode('Thing', len(7, str(1, 'a'), int(2, 1)), len(7, str(1, 'b')), len(14, str(1, 'first')), len(14, int(2, 9)), len(15, str(1, 'inlined')));
    expect(object).toEqual({ items: [{ name: 'a', value: 1 }, { name: 'b' }], child: { name: 'first', value: 9 }, note: 'inlined' });
  });

  it('renders Time, MicroTime, IntOrString and Quantity as Kubernetes JSON does', () => {
    expect(decode('Thing', len(10, int(1, 1_700_000_000), int(2, 999)), len(11, int(1, 1_700_000_000), int(2, 123_456_789)))).toEqual({
      when: '2023-11-14T22:13:20Z',
      at: '2023-11-14T22:13:20.123456Z',
    });
    expect(decode('Thing', len(10))).toEqual({});
    expect(decode('Thing', len(12, int(1, 0), int(2, 8080), str(3, '')))).toEqual({ port: 8080 });
    expect(decode('Thing', len(12, int(1, 1), int(2, 0), str(3, 'http')))).toEqual({ port: 'http' });
    expect(decode('Thing', len(12, int(1, 0), int(2, 0), str(3, '')))).toEqual({ port: 0 });
    expect(decode('Thing', len(13, str(1, '500m')))).toEqual({ size: '500m' });
  });

  it.each([
    ['a string cut short', [0x0a, 0x05, 0x61], 'name (protobuf field 1 of Thing): truncated: 5 bytes announced, 1 left at byte 1'],
    ['a nested message cut short', [...len(7, str(1, 'a')).slice(0, -1)], 'truncated: 3 bytes announced, 2 left at byte 1'],
    ['a field cut inside a nested message', len(7, [0x0a, 0x04, 0x61]), 'items[0].name (protobuf field 1 of Item): truncated: 4 bytes announced, 1 left at byte 3'],
    ['a varint where a string belongs', int(1, 3), 'name: protobuf field 1 has wire type varint, expected length-delimited for a string at byte 0'],
    ['a string where a varint belongs', str(2, 'x'), 'count: protobuf field 2 has wire type length-delimited, expected varint for a int32 at byte 0'],
    ['an IntOrString of type 2', len(12, int(1, 2)), 'port: IntOrString type 2 is neither 0 (int) nor 1 (string)'],
    ['a time past year 9999', len(10, int(1, 300_000_000_000)), 'when: time 300000000000s is outside the years 0000-9999'],
    ['an int64 beyond 2^53', int(17, 2n ** 60n), 'total: 1152921504606846976 is outside the integers JSON clients can represent exactly'],
    ['a map key sent as a varint', len(5, int(1, 1)), 'labels: map key has wire type varint, expected length-delimited'],
  ])('rejects %s with a ProtobufDecodeError naming the field', (_name, input, message) => {
    expect(() => decode('Thing', input)).toThrow(ProtobufDecodeError);
    expect(() => decode('Thing', input)).toThrow(message);
  });

  it('never throws anything but ProtobufDecodeError on truncated or corrupted real objects', () => {
    const deployment = [
      ...len(1, str(1, 'web'), entry(11, 'app', str(2, 'web')), len(8)),
      ...len(
        2,
        int(1, 2),
        len(2, entry(1, 'app', str(2, 'web'))),
        len(3, len(1, entry(11, 'app', str(2, 'web'))), len(2, len(2, str(1, 'nginx'), str(2, 'nginx'), len(6, int(3, 80)), len(8)))),
        len(4, str(1, 'RollingUpdate'), len(2, len(1, int(1, 1), str(3, '25%')))),
      ),
      ...len(3),
    ];
    const full = decodeProtobufMessage(new Uint8Array(deployment), 'Deployment', builtinProtobufSchemas);
    expect(full).toEqual({
      metadata: { name: 'web', labels: { app: 'web' } },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 80 }], resources: {} }] } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%' } },
      },
      status: {},
    });
    let seed = 42;
    const random = (): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const inputs: number[][] = deployment.map((_, index) => deployment.slice(0, index));
    for (let round = 0; round < 500; round++) {
      const corrupted = [...deployment];
      for (let flips = 0; flips < 3; flips++) corrupted[Math.floor(random() * corrupted.length)] = Math.floor(random() * 256);
      inputs.push(corrupted);
    }
    let failures = 0;
    for (const input of inputs) {
      try {
        decodeProtobufMessage(new Uint8Array(input), 'Deployment', builtinProtobufSchemas);
      } catch (error) {
        expect(error).toBeInstanceOf(ProtobufDecodeError);
        failures++;
      }
    }
    // Most truncations are detected; a cut exactly between two fields is a valid shorter message.
    expect(failures).toBeGreaterThan(deployment.length / 2);
  });
});

describe('parseProtobufSchemas', () => {
  it.each([
    [{ A: 'name' }, 'protobuf schema A: cannot parse field "name"'],
    [{ A: 'a=1 b=1' }, 'protobuf schema A: field number 1 used twice'],
    [{ A: 'a=1:Missing' }, 'protobuf schema A.a: unknown type Missing'],
    [{ A: 'a=1:B[]?', B: 'x=1' }, 'protobuf schema A.a: "?" does not apply to lists and maps'],
    [{ A: '...a=1:int32' }, 'protobuf schema A.a: only a single message can be inlined'],
  ])('rejects a mistaken table %j', (table, message) => {
    expect(() => parseProtobufSchemas(table)).toThrow(message);
  });

  it('holds the built-in kinds with the field numbers of k8s.io/api', () => {
    const number = (message: string, jsonName: string): number | undefined =>
      [...(builtinProtobufSchemas.get(message)?.fields.values() ?? [])].find((field) => field.jsonName === jsonName)?.number;
    expect(number('ObjectMeta', 'managedFields')).toBe(17);
    expect(number('Secret', 'immutable')).toBe(5);
    expect(number('ConfigMap', 'immutable')).toBe(4);
    expect(number('PodSpec', 'resources')).toBe(40);
    expect(number('DeploymentSpec', 'progressDeadlineSeconds')).toBe(9);
    expect(number('ServiceSpec', 'trafficDistribution')).toBe(23);
    expect(number('OwnerReference', 'apiVersion')).toBe(5);
  });
});
