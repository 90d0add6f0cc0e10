import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DurableLog } from './durable-log.js';
import type { KubeObject } from './kube-object.js';
import { Store } from './store.js';

const configMap = (name: string, value: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { value } } as KubeObject);

describe('DurableLog', () => {
  const directories: string[] = [];
  const temporary = () => {
    const directory = mkdtempSync(join(tmpdir(), 'olm-durable-log-'));
    directories.push(directory);
    return directory;
  };
  afterEach(() => {
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  });

  it('replays writes, compacts while running, and keeps the watch history', async () => {
    const directory = temporary();
    const first = new Store(100);
    const log = await DurableLog.open(directory, first, { compactAfterRecords: 10 });
    for (let index = 0; index < 30; index++) {
      first.put('/configmaps', configMap(`c${index % 5}`, String(index)));
      await first.durable();
    }
    first.remove('/configmaps', first.get('/configmaps', 'default', 'c0')!);
    await log.close();
    const lines = readFileSync(join(directory, 'store.jsonl'), 'utf8').trim().split('\n');
    // Compacted at least once: far fewer lines than 31 appends plus their history.
    expect(lines.filter((line) => line.includes('"r":{"t":"meta"'))).toHaveLength(1);

    const second = new Store(100);
    const reopened = await DurableLog.open(directory, second);
    expect(second.revision).toBe(31);
    expect(second.list('/configmaps').map((object) => `${object.metadata.name}=${(object['data'] as { value: string }).value}@${object.metadata.resourceVersion}`)).toEqual([
      'c1=26@27',
      'c2=27@28',
      'c3=28@29',
      'c4=29@30',
    ]);
    expect(second.eventsSince(28)?.map((event) => `${event.type} ${event.object.metadata.name}`)).toEqual(['MODIFIED c3', 'MODIFIED c4', 'DELETED c0']);
    await reopened.close();
  });

  it('acknowledges a write only once it is in the file', async () => {
    const directory = temporary();
    const store = new Store();
    const log = await DurableLog.open(directory, store);
    store.put('/configmaps', configMap('a', '1'));
    await store.durable();
    expect(readFileSync(join(directory, 'store.jsonl'), 'utf8')).toContain('"name":"a"');
    await log.close();
  });

  it('acknowledges a write that waited for a running sync only after a later sync covered it', async () => {
    const directory = temporary();
    // Observe what was on disk (written, then datasynced) whenever a write is acknowledged.
    const probe = await open(join(directory, 'probe'), 'w');
    const fileHandle = Object.getPrototypeOf(probe) as { write: (...args: unknown[]) => Promise<unknown>; datasync: () => Promise<void> };
    await probe.close();
    const { write, datasync } = fileHandle;
    let written = '';
    let synced = '';
    fileHandle.write = async function (this: unknown, ...args: unknown[]) {
      const result = await write.apply(this, args);
      written += String(args[0]);
      return result;
    };
    fileHandle.datasync = async function (this: unknown) {
      const before = written;
      await datasync.call(this);
      synced = before;
    };
    try {
      const store = new Store();
      const log = await DurableLog.open(directory, store);
      store.put('/configmaps', configMap('a', '1'));
      const first = store.durable();
      // The moment the first sync ends, another write starts the next sync, which takes `b` along.
      void first.then(() => {
        store.put('/configmaps', configMap('c', '1'));
        void store.durable();
      });
      store.put('/configmaps', configMap('b', '1'));
      await store.durable();
      expect(synced).toContain('"name":"b"');
      await log.close();
    } finally {
      fileHandle.write = write;
      fileHandle.datasync = datasync;
    }
  });

  it('rewrites the log after a failed append, so the part of a line it left is not in the middle on the next start', async () => {
    const directory = temporary();
    const probe = await open(join(directory, 'probe'), 'w');
    const fileHandle = Object.getPrototypeOf(probe) as { write: (...args: unknown[]) => Promise<unknown> };
    await probe.close();
    const { write } = fileHandle;
    // The disk fills up halfway through the first append (as ENOSPC would leave it).
    let failNext = false;
    fileHandle.write = async function (this: unknown, ...args: unknown[]) {
      if (!failNext) return write.apply(this, args);
      failNext = false;
      const text = String(args[0]);
      await write.call(this, text.slice(0, Math.floor(text.length / 2)));
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    };
    try {
      const store = new Store();
      const log = await DurableLog.open(directory, store);
      failNext = true;
      store.put('/configmaps', configMap('lost', '1'));
      await expect(store.durable()).rejects.toThrow('ENOSPC');
      store.put('/configmaps', configMap('kept', '1'));
      await store.durable();
      await log.close();
    } finally {
      fileHandle.write = write;
    }
    const reopened = new Store();
    const log = await DurableLog.open(directory, reopened);
    expect(reopened.list('/configmaps').map((object) => object.metadata.name)).toContain('kept');
    await log.close();
  });
});
