import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kinds, SourceDirectoryAnnotation } from '@olm/api';
import type { CachedObject } from '@olm/core';
import { freeLoopbackPort } from '@olm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleCatalogDirectory } from '../src/paths.js';
import { startOlmCluster, type OlmCluster } from './local-olm-cluster.js';
import { builtCli, runCliCaptured, startBuiltOlmRun } from './run-cli.js';

type Json = CachedObject & Record<string, any>;

describe('olm run: the ClusterCatalog controller flags', () => {
  it('refuses a malformed --catalog-directory, --catalog-server-address or --catalog-server-url, naming the flag (exit 2)', async () => {
    const cases: Array<[string[], string]> = [
      [['--catalog-directory', 'acme'], '--catalog-directory "acme": give NAME=DIR'],
      [['--catalog-server-address', '8443'], '--catalog-server-address "8443": give HOST:PORT'],
      [['--catalog-server-url', 'ftp://catalogs.example.com'], '--catalog-server-url "ftp://catalogs.example.com": the scheme must be https (or http)'],
    ];
    for (const [flags, message] of cases) {
      const run = await runCliCaptured(['run', '--kubeconfig', '/nonexistent/kubeconfig', ...flags]);
      expect(run.stderr, flags.join(' ')).toContain(message);
      expect(run.code).toBe(2);
    }
  });

  describe.skipIf(!existsSync(builtCli))('against a cluster (the built CLI)', () => {
    let cluster: OlmCluster;
    let cacheDirectory: string;
    beforeAll(async () => {
      cluster = await startOlmCluster();
      cacheDirectory = await mkdtemp(join(tmpdir(), 'olm-run-catalogs-'));
    });
    afterAll(async () => {
      await cluster?.stop();
      await rm(cacheDirectory, { recursive: true, force: true });
    });

    it('serves a --catalog-directory catalog at --catalog-server-address, with --catalog-server-url in status.urls.base, from --catalog-cache-dir', async () => {
      const port = await freeLoopbackPort();
      const olmRun = startBuiltOlmRun(cluster.kubeconfigPath, [
        '--controllers', 'catalog',
        '--catalog-directory', `examples=${exampleCatalogDirectory}`,
        '--catalog-server-address', `127.0.0.1:${port}`,
        '--catalog-server-url', 'https://catalogd-service.olm.svc',
        '--catalog-cache-dir', cacheDirectory,
      ]);
      try {
        await cluster.client.create({
          ...Kinds.clusterCatalog,
          metadata: { name: 'examples', annotations: { [SourceDirectoryAnnotation]: 'examples' } },
          spec: { source: { type: 'Image', image: { ref: 'registry.example.com/acme/examples:latest' } } },
        } as Json);
        let catalog: Json | undefined;
        for (let tries = 0; tries < 400 && catalog?.status?.urls === undefined; tries += 1) {
          catalog = await cluster.client.get<Json>({ ...Kinds.clusterCatalog, name: 'examples' });
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(catalog?.status?.urls, `${JSON.stringify(catalog?.status)}\n${olmRun.output()}`).toEqual({ base: 'https://catalogd-service.olm.svc/catalogs/examples' });
        expect(await readdir(join(cacheDirectory, 'examples'))).toEqual(expect.arrayContaining(['catalog.jsonl', 'index.json']));
        // the server listens where it was told (its certificate is self-signed: only the port is checked here)
        const { connect } = await import('node:net');
        await new Promise<void>((resolve, reject) => {
          const socket = connect(port, '127.0.0.1', () => {
            socket.destroy();
            resolve();
          }).once('error', reject);
        });
      } finally {
        expect(await olmRun.stop()).not.toBe(1);
      }
    }, 90_000);
  });
});
