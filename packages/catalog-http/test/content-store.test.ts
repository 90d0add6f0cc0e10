import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCatalog } from '@olm/registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCatalogContent, writeCatalogContent } from '../src/index.js';

let work: string;

const packageFile = (version: string): string => `
schema: olm.package
name: demo
defaultChannel: stable
---
schema: olm.channel
package: demo
name: stable
entries:
  - name: demo.v${version}
---
schema: olm.bundle
package: demo
name: demo.v${version}
image: quay.io/demo/bundle:v${version}
properties:
  - type: olm.package
    value: { packageName: demo, version: ${version} }
relatedImages:
  - image: quay.io/demo/operator:v${version}
---
schema: example.com.notes
package: demo
name: note
text: "<b>kept & unescaped</b>"
---
schema: olm.deprecations
package: demo
entries:
  - reference: { schema: olm.bundle, name: demo.v${version} }
    message: use something else
`;

async function catalogDir(name: string, version: string): Promise<string> {
  const dir = join(work, name);
  await mkdir(join(dir, 'demo'), { recursive: true });
  await writeFile(join(dir, 'demo', 'catalog.yaml'), packageFile(version));
  return dir;
}

async function readAll(generator: AsyncGenerator<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of generator) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'catalog-content-'));
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('writeCatalogContent / openCatalogContent', () => {
  it("writes catalogd's files: every schema as Go encodes it, and an index of byte sections", async () => {
    const content = join(work, 'content-a');
    const revision = await writeCatalogContent(content, await loadCatalog(await catalogDir('a', '1.0.0')), new Date('2030-01-02T03:04:05.678Z'));
    expect(revision).toMatchObject({ objects: 5, lastModified: new Date('2030-01-02T03:04:05Z') });
    expect(revision.etag).toMatch(/^"[0-9a-f]{64}"$/);
    expect((await readdir(content)).sort()).toEqual(['catalog.jsonl', 'catalog.jsonl.gz', 'index.json', 'revision.json']);
    const lines = (await readFile(join(content, 'catalog.jsonl'), 'utf8')).split('\n');
    expect(lines).toEqual([
      '{"defaultChannel":"stable","name":"demo","schema":"olm.package"}',
      '{"entries":[{"name":"demo.v1.0.0"}],"name":"stable","package":"demo","schema":"olm.channel"}',
      '{"image":"quay.io/demo/bundle:v1.0.0","name":"demo.v1.0.0","package":"demo","properties":[{"type":"olm.package","value":{"packageName":"demo","version":"1.0.0"}}],"relatedImages":[{"image":"quay.io/demo/operator:v1.0.0"}],"schema":"olm.bundle"}',
      '{"name":"note","package":"demo","schema":"example.com.notes","text":"<b>kept & unescaped</b>"}',
      '{"entries":[{"message":"use something else","reference":{"name":"demo.v1.0.0","schema":"olm.bundle"}}],"package":"demo","schema":"olm.deprecations"}',
      '',
    ]);
    const index = JSON.parse(await readFile(join(content, 'index.json'), 'utf8')) as Record<string, Record<string, [number, number][]>>;
    expect(Object.keys(index.by_schema!).sort()).toEqual(['example.com.notes', 'olm.bundle', 'olm.channel', 'olm.deprecations', 'olm.package']);
    expect(index.by_package!.demo!.length).toBe(4);
    const store = await openCatalogContent(content);
    try {
      expect(await readAll(store.read(store.index.sections({ schema: 'olm.bundle', package: 'demo', name: '' })))).toBe(`${lines[2]}\n`);
      expect(await readAll(store.read(store.index.sections({ schema: '', package: 'demo', name: 'note' })))).toBe(`${lines[3]}\n`);
    } finally {
      await store.close();
    }
  });

  it('replaces a revision atomically: an open store keeps reading the revision it opened', async () => {
    const content = join(work, 'content-b');
    const first = await writeCatalogContent(content, await loadCatalog(await catalogDir('b1', '1.0.0')));
    const old = await openCatalogContent(content);
    const second = await writeCatalogContent(content, await loadCatalog(await catalogDir('b2', '2.0.0')));
    const current = await openCatalogContent(content);
    try {
      expect(second.etag).not.toBe(first.etag);
      expect(await readAll(old.read())).toContain('demo.v1.0.0');
      expect(await readAll(old.read())).not.toContain('demo.v2.0.0');
      expect(await readAll(current.read())).toContain('demo.v2.0.0');
      expect((await readdir(work)).filter((name) => name.startsWith('.content-b'))).toEqual([]);
    } finally {
      await old.close();
      await current.close();
    }
  });

  it('refuses damaged content with what is wrong and how to fix it', async () => {
    const content = join(work, 'content-c');
    await writeCatalogContent(content, await loadCatalog(await catalogDir('c', '1.0.0')));
    await writeFile(join(content, 'index.json'), '{"by_schema":{"olm.bundle":[[0,999999]]},"by_package":{},"by_name":{}}');
    await expect(openCatalogContent(content)).rejects.toThrow(
      `catalog content in ${content}: cannot read index.json: by_schema["olm.bundle"] has a section outside the`,
    );
    await expect(openCatalogContent(join(work, 'missing'))).rejects.toThrow(/cannot read revision\.json: ENOENT.*; write it again with writeCatalogContent/);
  });
});
