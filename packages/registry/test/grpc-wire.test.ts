import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { CatalogContent } from '@olm/core';
import { registryProtoPaths, startRegistryServer } from '../src/grpc/index.js';
import type { RegistryServer } from '../src/grpc/index.js';

// Wire compatibility, checked without our typed client: requests are encoded by hand from the
// published field numbers and answers decoded field by field; then a stock proto-loader client
// built from the shipped .proto with default options talks to the server.

const catalog: CatalogContent = {
  packages: new Map([
    [
      'etcd',
      {
        name: 'etcd',
        defaultChannel: 'stable',
        deprecations: [
          { reference: { schema: 'olm.package' }, message: 'package gone' },
          { reference: { schema: 'olm.channel', name: 'stable' }, message: 'channel gone' },
          { reference: { schema: 'olm.bundle', name: 'etcd.v1.0.0' }, message: 'bundle gone' },
        ],
        channels: new Map([['stable', { name: 'stable', package: 'etcd', entries: [{ name: 'etcd.v1.0.0', replaces: 'etcd.v0.9.0', skips: ['etcd.v0.9.5'], skipRange: '<1.0.0' }] }]]),
        bundles: new Map([
          [
            'etcd.v1.0.0',
            {
              name: 'etcd.v1.0.0',
              package: 'etcd',
              image: 'quay.io/etcd@sha256:01',
              version: '1.0.0',
              properties: [
                { type: 'olm.package', value: { packageName: 'etcd', version: '1.0.0' } },
                { type: 'olm.gvk', value: { group: 'etcd.io', version: 'v1', kind: 'Cluster' } },
                { type: 'olm.gvk.required', value: { group: 'mon.io', version: 'v1', kind: 'Mon' } },
              ],
            },
          ],
        ]),
      },
    ],
  ]),
};

/** A protobuf field: number, and its raw bytes (length-delimited) or varint. */
interface Field {
  readonly number: number;
  readonly bytes?: Buffer;
  readonly varint?: number;
}

function decode(buffer: Buffer): Field[] {
  const fields: Field[] = [];
  let offset = 0;
  const varint = (): number => {
    let result = 0;
    let shift = 0;
    for (;;) {
      const byte = buffer[offset++] as number;
      result += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7;
    }
  };
  while (offset < buffer.length) {
    const tag = varint();
    const wireType = tag & 7;
    const number = tag >>> 3;
    if (wireType === 2) {
      const length = varint();
      fields.push({ number, bytes: buffer.subarray(offset, offset + length) });
      offset += length;
    } else if (wireType === 0) {
      fields.push({ number, varint: varint() });
    } else {
      throw new Error(`unexpected wire type ${wireType}`);
    }
  }
  return fields;
}

function encodeStrings(fields: Record<number, string>): Buffer {
  const parts: Buffer[] = [];
  for (const [number, value] of Object.entries(fields)) {
    const bytes = Buffer.from(value, 'utf8');
    parts.push(Buffer.from([(Number(number) << 3) | 2, bytes.length]), bytes);
  }
  return Buffer.concat(parts);
}

const text = (fields: Field[], number: number): string[] => fields.filter((field) => field.number === number).map((field) => field.bytes?.toString('utf8') ?? '');
const nested = (fields: Field[], number: number): Field[][] => fields.filter((field) => field.number === number).map((field) => decode(field.bytes ?? Buffer.alloc(0)));

describe('registry wire format', () => {
  let server: RegistryServer;
  let raw: grpc.Client;

  beforeAll(async () => {
    server = await startRegistryServer({ catalog });
    raw = new grpc.Client(server.address, grpc.credentials.createInsecure());
  });
  afterAll(async () => {
    raw.close();
    await server.stop();
  });

  const unary = (path: string, request: Buffer) =>
    new Promise<Buffer>((resolve, reject) => {
      raw.makeUnaryRequest(path, (value: Buffer) => value, (value: Buffer) => value, request, (error, response) => {
        if (error) reject(error);
        else resolve(response as Buffer);
      });
    });

  it('GetBundle: request fields 1-3, Bundle fields 1-15 by number', async () => {
    const response = decode(await unary('/api.Registry/GetBundle', encodeStrings({ 1: 'etcd', 2: 'stable', 3: 'etcd.v1.0.0' })));
    expect(text(response, 1)).toEqual(['etcd.v1.0.0']); // csvName
    expect(text(response, 2)).toEqual(['etcd']); // packageName
    expect(text(response, 3)).toEqual(['stable']); // channelName
    expect(text(response, 6)).toEqual(['quay.io/etcd@sha256:01']); // bundlePath
    expect(nested(response, 7).map((gvk) => [text(gvk, 1), text(gvk, 2), text(gvk, 3)].flat())).toEqual([['etcd.io', 'v1', 'Cluster']]); // providedApis
    expect(nested(response, 8).map((gvk) => text(gvk, 3)).flat()).toEqual(['Mon']); // requiredApis
    expect(text(response, 9)).toEqual(['1.0.0']); // version
    expect(text(response, 10)).toEqual(['<1.0.0']); // skipRange
    expect(nested(response, 11).map((dependency) => [text(dependency, 1), text(dependency, 2)].flat())).toEqual([
      ['olm.gvk', '{"group":"mon.io","kind":"Mon","version":"v1"}'],
    ]); // dependencies
    expect(nested(response, 12).map((property) => text(property, 1)).flat()).toEqual(['olm.package', 'olm.gvk', 'olm.gvk.required']); // properties
    expect(text(response, 13)).toEqual([]); // replaces: trimmed by GetBundle
    expect(nested(response, 15).map((deprecation) => text(deprecation, 1)).flat()).toEqual(['bundle gone']); // deprecation
  });

  it('GetPackage: Package fields 1-4 and Channel fields 1-3 by number', async () => {
    const response = decode(await unary('/api.Registry/GetPackage', encodeStrings({ 1: 'etcd' })));
    expect(text(response, 1)).toEqual(['etcd']);
    const channels = nested(response, 2);
    expect(channels.map((channel) => [text(channel, 1), text(channel, 2)].flat())).toEqual([['stable', 'etcd.v1.0.0']]);
    expect(channels.map((channel) => nested(channel, 3).map((deprecation) => text(deprecation, 1)).flat())).toEqual([['channel gone']]);
    expect(text(response, 3)).toEqual(['stable']);
    expect(nested(response, 4).map((deprecation) => text(deprecation, 1)).flat()).toEqual(['package gone']);
  });

  it('a stock proto-loader client built from the shipped .proto streams ListBundles and entries', async () => {
    const definition = protoLoader.loadSync(registryProtoPaths().registry);
    const api = (grpc.loadPackageDefinition(definition) as unknown as { api: { Registry: grpc.ServiceClientConstructor } }).api;
    const stock = new api.Registry(server.address, grpc.credentials.createInsecure()) as unknown as Record<
      string,
      (request: object) => grpc.ClientReadableStream<Record<string, unknown>>
    > & { close(): void };
    try {
      const bundles: Record<string, unknown>[] = [];
      for await (const message of (stock.ListBundles as (request: object) => grpc.ClientReadableStream<Record<string, unknown>>).call(stock, {})) {
        bundles.push(message);
      }
      expect(bundles).toHaveLength(1);
      expect(bundles[0]).toMatchObject({
        csvName: 'etcd.v1.0.0',
        replaces: 'etcd.v0.9.0',
        skips: ['etcd.v0.9.5'],
        bundlePath: 'quay.io/etcd@sha256:01',
      });
      const entries: Record<string, unknown>[] = [];
      const replacing = (stock.GetChannelEntriesThatReplace as (request: object) => grpc.ClientReadableStream<Record<string, unknown>>).call(stock, {
        csvName: 'etcd.v0.9.5',
      });
      for await (const message of replacing) entries.push(message);
      expect(entries).toEqual([{ packageName: 'etcd', channelName: 'stable', bundleName: 'etcd.v1.0.0', replaces: 'etcd.v0.9.0' }]);
    } finally {
      stock.close();
    }
  });

  it('the health service answers grpc.health.v1.Health/Check with SERVING (enum 1)', async () => {
    const response = decode(await unary('/grpc.health.v1.Health/Check', Buffer.alloc(0)));
    expect(response).toEqual([{ number: 1, varint: 1 }]);
  });

  it('Health/Watch reports SERVING and stays open until cancelled', async () => {
    const call = raw.makeServerStreamRequest('/grpc.health.v1.Health/Watch', (value: Buffer) => value, (value: Buffer) => value, Buffer.alloc(0));
    const first = await new Promise<Buffer>((resolve, reject) => {
      call.once('data', resolve);
      call.once('error', reject);
    });
    expect(decode(first)).toEqual([{ number: 1, varint: 1 }]);
    call.on('error', () => {}); // the cancellation below surfaces as a CANCELLED error
    call.cancel();
  });
});

describe('server reflection', () => {
  it('lists api.Registry and the health service (grpc.reflection.v1)', async () => {
    const server = await startRegistryServer({ catalog });
    const reflectionProto = fileURLToPath(
      new URL('../node_modules/@grpc/reflection/build/proto/grpc/reflection/v1/reflection.proto', import.meta.url),
    );
    const root = grpc.loadPackageDefinition(protoLoader.loadSync(reflectionProto, { keepCase: true })) as unknown as {
      grpc: { reflection: { v1: { ServerReflection: grpc.ServiceClientConstructor } } };
    };
    const client = new root.grpc.reflection.v1.ServerReflection(server.address, grpc.credentials.createInsecure()) as unknown as {
      ServerReflectionInfo(): grpc.ClientDuplexStream<object, { list_services_response?: { service: { name: string }[] } }>;
      close(): void;
    };
    try {
      const call = client.ServerReflectionInfo();
      call.write({ list_services: '' });
      call.end();
      const names: string[] = [];
      for await (const response of call) names.push(...(response.list_services_response?.service ?? []).map((service: { name: string }) => service.name));
      expect(names).toEqual(expect.arrayContaining(['api.Registry', 'grpc.health.v1.Health']));
    } finally {
      client.close();
      await server.stop();
    }
  });
});
