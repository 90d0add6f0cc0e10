import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient } from '@olm/controller-runtime';
import { runDistribution } from '@olm/olm';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { v1Distribution } from '../src/distribution.js';

describe('olm-v1 up', { timeout: 180_000 }, () => {
  const directory = mkdtempSync(join(tmpdir(), 'olm-v1-up-'));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('serves the example catalog as a ClusterCatalog only: no CatalogSource, no PackageManifests', async () => {
    let output = '';
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      output += String(chunk);
      return true;
    });
    try {
      const kubeconfig = join(directory, 'kubeconfig');
      const running = runDistribution(v1Distribution, ['up', '--port', '0', '--kubeconfig', kubeconfig, '--run-for', '170000']);
      await expect.poll(() => output, { timeout: 120_000, interval: 100 }).toContain('running; press Ctrl-C');
      const client = new KubeClient({ kubeconfig: readFileSync(kubeconfig, 'utf8') });
      try {
        const served = await client.find<{ status?: { conditions?: Array<{ type: string; status: string }> } }>({ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', name: 'acme-examples' });
        expect(served).toBeDefined();
        expect((await client.list({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'CatalogSource' }, { namespace: 'olm' })).items).toEqual([]);
        expect(await client.find({ apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', name: 'v1.packages.operators.coreos.com' })).toBeUndefined();
      } finally {
        client.close();
      }
      expect(output).not.toContain('starting the packageserver');
      expect(output).toContain('kubectl get clusterextensions');
      expect(output).not.toContain('kubectl get catalogsources');
      process.emit('SIGINT');
      expect(await running).toBe(0);
    } finally {
      write.mockRestore();
    }
  });

  it('refuses --catalog, which would serve a CatalogSource, before starting anything', async () => {
    let errors = '';
    const write = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      errors += String(chunk);
      return true;
    });
    try {
      const code = await runDistribution(v1Distribution, ['up', '--port', '0', '--kubeconfig', join(directory, 'refused'), '--catalog', directory, '--exit-after-start']);
      expect(code).toBe(2);
      expect(errors).toContain('--catalog serves a directory as a CatalogSource, an OLM v0 API that olm-v1 does not serve');
    } finally {
      write.mockRestore();
    }
  });
});
