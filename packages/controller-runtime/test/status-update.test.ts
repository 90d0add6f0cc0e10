import { hasErrorCode, type CachedObject } from '@olm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeErrorCodes } from '../src/errors.js';
import type { KubeClient } from '../src/kube-client.js';
import { updateObject, updateStatus, writeStatusIfChanged } from '../src/status-update.js';
import { configMap, configMapKind, createNamespace, installToyCrd, startServer, toyKind } from './helpers.js';

let env: Awaited<ReturnType<typeof startServer>>;
let client: KubeClient;

beforeAll(async () => {
  env = await startServer();
  client = env.client();
  await createNamespace(client, 'kc');
  await installToyCrd(client);
  await client.create(configMap('kc', 'one', { a: '1' }));
});
afterAll(() => env?.stop());

describe('updateStatus and updateObject against the local API server', () => {
  it('updates status through the subresource, re-reading and re-applying the mutation after a conflict', async () => {
    type Toy = CachedObject & { spec?: { value: string }; status?: { copied?: string; touchedBy?: string[] } };
    const reference = { ...toyKind, namespace: 'kc', name: 'toy' };
    const created = await client.create<Toy>({ ...toyKind, metadata: { namespace: 'kc', name: 'toy' }, spec: { value: 'hello' } });
    const staleVersion = created.metadata!.resourceVersion!;
    await client.patch(reference, { spec: { value: 'world' } });
    let calls = 0;
    const updated = await updateStatus<Toy>(client, reference, (toy) => {
      calls += 1;
      // The first attempt writes with an outdated resourceVersion, as if someone wrote in between.
      if (calls === 1) toy.metadata!.resourceVersion = staleVersion;
      toy.status = { copied: toy.spec?.value, touchedBy: [...(toy.status?.touchedBy ?? []), 'us'] };
      if (toy.spec) toy.spec.value = 'ignored: the status subresource does not write spec';
    });
    expect(calls).toBe(2);
    expect(updated.status).toEqual({ copied: 'world', touchedBy: ['us'] });
    const stored = await client.get<Toy>(reference);
    expect(stored.spec?.value).toBe('world');
    expect(stored.status?.copied).toBe('world');
  });

  it('retries a conflicting update and gives up with a coded error when it never settles', async () => {
    const created = await client.create(configMap('kc', 'contended', { n: '0' }));
    const staleVersion = created.metadata!.resourceVersion!;
    const reference = { ...configMapKind, namespace: 'kc', name: 'contended' };
    await client.patch(reference, { data: { other: 'x' } });
    let attempts = 0;
    const result = await updateObject<CachedObject & { data?: Record<string, string> }>(client, reference, (object) => {
      attempts += 1;
      if (attempts <= 2) object.metadata!.resourceVersion = staleVersion;
      object.data = { ...object.data, n: 'mine' };
    });
    expect(attempts).toBe(3);
    expect(result.data).toEqual({ n: 'mine', other: 'x' });

    let tries = 0;
    const error = await updateObject(
      client,
      reference,
      (object) => {
        tries += 1;
        object.data = { n: `try-${tries}` };
        object.metadata!.resourceVersion = staleVersion;
      },
      { attempts: 3 },
    ).catch((caught: unknown) => caught);
    expect(hasErrorCode(error, RuntimeErrorCodes.conflictRetriesExhausted)).toBe(true);
    expect(tries).toBe(3);
  });

  it('skips the write when the mutation changes nothing', async () => {
    const before = await client.get({ ...configMapKind, namespace: 'kc', name: 'one' });
    const after = await updateObject(client, { ...configMapKind, namespace: 'kc', name: 'one' }, () => {});
    expect(after.metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
  });


  it('writeStatusIfChanged sends nothing when the cached copy has the status, writes the latest object otherwise, and ignores an object gone', async () => {
    type Toy = CachedObject & { spec?: { value: string }; status?: { copied?: string } };
    const reference = { ...toyKind, namespace: 'kc', name: 'toy-if-changed' };
    const created = await client.create<Toy>({ ...toyKind, metadata: { namespace: 'kc', name: 'toy-if-changed' }, spec: { value: 'a' } });
    await writeStatusIfChanged<Toy>(client, reference, created, (toy) => ({ copied: toy.spec?.value }));
    const written = await client.get<Toy>(reference);
    expect(written.status).toEqual({ copied: 'a' });
    await writeStatusIfChanged<Toy>(client, reference, written, (toy) => ({ copied: toy.spec?.value }));
    expect((await client.get<Toy>(reference)).metadata!.resourceVersion).toBe(written.metadata!.resourceVersion);
    await client.delete(reference);
    await expect(writeStatusIfChanged<Toy>(client, reference, written, () => ({ copied: 'b' }))).resolves.toBeUndefined();
  });
});
