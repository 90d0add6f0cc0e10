import { afterEach, describe, expect, it } from 'vitest';
import { hasErrorCode } from '@olm/core';
import { createRegistryClient, loadCatalogFromRegistry, RegistryGrpcErrorCodes } from '../src/grpc/index.js';
import type { RegistryClient } from '../src/grpc/index.js';
import { createGrpcSourceType } from '../src/sources/index.js';
import { startEndlessRegistry, type EndlessRegistry } from '../src/testing/endless-registry.js';

/** A registry that streams bundles forever: the client stops each stream at its bound, with an error saying which. */
let server: EndlessRegistry | undefined;
let client: RegistryClient | undefined;
afterEach(async () => {
  client?.close();
  client = undefined;
  await server?.stop();
  server = undefined;
});

async function drain(iterable: AsyncIterable<unknown>): Promise<number> {
  let count = 0;
  for await (const _ of iterable) count += 1;
  return count;
}

/** Resolves once the server has seen `count` streams cancelled (the client's cancel travels over the wire). */
async function cancelledStreams(registry: EndlessRegistry, count: number): Promise<void> {
  while (registry.counts.cancelledStreams < count) await new Promise((resolve) => setImmediate(resolve));
}

describe('registry client stream bounds', () => {
  it('stops an endless ListBundles at maxStreamMessages, cancels it on the server, and says which limit and how to raise it', async () => {
    server = await startEndlessRegistry();
    client = createRegistryClient(server.address, { maxStreamMessages: 2_000 });
    let read = 0;
    const error = await (async () => {
      try {
        for await (const _ of client.listBundles()) read += 1;
      } catch (thrown) {
        return thrown;
      }
      return undefined;
    })();
    expect(hasErrorCode(error, RegistryGrpcErrorCodes.streamLimit)).toBe(true);
    expect((error as Error).message).toBe(
      `ListBundles on ${server.address}: the registry sent more than 2000 messages on one stream (limit maxStreamMessages); the stream was cancelled`,
    );
    expect((error as { details?: { hint?: string } }).details?.hint).toMatch(/raise the registry client option maxStreamMessages/);
    expect(read).toBe(2_000);
    await cancelledStreams(server, 1);
    const sentWhenCancelled = server.counts.messagesSent;
    // Nothing more is sent once cancelled: the stream is over on both ends.
    await client.checkHealth();
    expect(server.counts.messagesSent).toBe(sentWhenCancelled);
  });

  it('stops at maxStreamBytes, counting serialized bytes before messages are built', async () => {
    server = await startEndlessRegistry({ padBytes: 64 * 1024 });
    client = createRegistryClient(server.address, { maxStreamBytes: 4 * 1024 * 1024 });
    await expect(drain(client.listBundles())).rejects.toSatisfy(
      (error) => hasErrorCode(error, RegistryGrpcErrorCodes.streamLimit) && /more than 4194304 bytes on one stream \(limit maxStreamBytes\)/.test((error as Error).message),
    );
  });

  it('stays responsive while it reads an endless stream: other calls are answered meanwhile', async () => {
    server = await startEndlessRegistry();
    client = createRegistryClient(server.address, { maxStreamMessages: 50_000 });
    let streamDone = false;
    const reading = drain(client.listBundles()).finally(() => {
      streamDone = true;
    });
    await server.sent(5_000);
    // Answered in the middle of the stream, on the same channel and event loop.
    expect(await client.checkHealth()).toBe('SERVING');
    expect(await client.listPackages()).toEqual(['endless']);
    expect(streamDone).toBe(false);
    await expect(reading).rejects.toSatisfy((error) => hasErrorCode(error, RegistryGrpcErrorCodes.streamLimit));
  });

  it('the grpc source type takes the bound from its client options and names the CatalogSource in the error', async () => {
    server = await startEndlessRegistry();
    const sourceType = createGrpcSourceType({ client: { maxStreamMessages: 1_000 } });
    const connection = await sourceType.open({ namespace: 'olm', name: 'endless', spec: { address: server.address } });
    try {
      await expect(connection.load()).rejects.toSatisfy(
        (error) =>
          hasErrorCode(error, RegistryGrpcErrorCodes.streamLimit) &&
          (error as Error).message.startsWith(`CatalogSource olm/endless: ListBundles on ${server?.address}: the registry sent more than 1000 messages`),
      );
      expect(server.counts.listBundlesCalls).toBe(1);
    } finally {
      await connection.close();
    }
  });

  it('loadCatalogFromRegistry fails with the bound instead of reading until the deadline', async () => {
    server = await startEndlessRegistry();
    client = createRegistryClient(server.address, { maxStreamMessages: 1_000 });
    await expect(loadCatalogFromRegistry(client)).rejects.toSatisfy((error) => hasErrorCode(error, RegistryGrpcErrorCodes.streamLimit));
  });
});
