import { readFileSync } from 'node:fs';
import { httpsGet } from '@olm/testing';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eUnavailableReason, startOlmUp, type OlmUp } from './olm-up.js';

const unavailable = e2eUnavailableReason();
if (unavailable) console.warn(`end-to-end suite skipped: ${unavailable}`);


describe.skipIf(unavailable !== undefined)('end to end: OLM v1 ClusterCatalogs with kubectl against olm up', () => {
  let up: OlmUp;
  beforeAll(async () => {
    up = await startOlmUp();
  });
  afterAll(async () => {
    expect(await up?.stop()).toBe(0);
  });

  it('kubectl get clustercatalogs shows acme-examples Serving, and its base URL serves the example catalog over HTTPS', async () => {
    const table = await up.kubectlOk(['get', 'clustercatalogs']);
    expect(table).toMatch(/^NAME\s+LASTUNPACKED\s+SERVING\s+AGE\n/);
    expect(table).toMatch(/\nacme-examples\s+\S+\s+True\s+\S+\n/);

    const catalog = JSON.parse(await up.kubectlOk(['get', 'clustercatalog', 'acme-examples', '-o', 'json']));
    expect(catalog.metadata.labels['olm.operatorframework.io/metadata.name']).toBe('acme-examples');
    expect(catalog.status.conditions.map((condition: { type: string; status: string; reason: string }) => `${condition.type}=${condition.status}/${condition.reason}`).sort()).toEqual([
      'Progressing=True/Succeeded',
      'Serving=True/Available',
    ]);
    const base: string = catalog.status.urls.base;
    expect(base).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/catalogs\/acme-examples$/);
    expect(up.output()).toContain(`ClusterCatalog acme-examples: ${base}`);

    const ca = readFileSync(join(dirname(up.kubeconfig), 'catalogd-ca.crt'), 'utf8');
    const all = await httpsGet(`${base}/api/v1/all`, ca);
    expect(all.status).toBe(200);
    const packages = all.body
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { schema: string; name: string })
      .filter((blob) => blob.schema === 'olm.package')
      .map((blob) => blob.name);
    expect(packages.sort()).toEqual(['acme-backup', 'acme-database', 'acme-monitoring']);
  });

  it('olm crds prints the ClusterCatalog CRD with the v0 ones', async () => {
    const printed = await up.olm(['crds']);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toContain('name: clustercatalogs.olm.operatorframework.io');
  });
});
