import { ClusterExtensionCleanupFinalizer, Kinds } from '@olm/api';
import { ownerLabels } from '@olm/bundle-render';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterExtension, conditionOf, startV1Cluster, type StoredClusterExtension, type V1Cluster } from './helpers.js';

const databaseCrd = { ...Kinds.customResourceDefinition, name: 'databases.acme.example.com' };
const installedVersion = (version: string) => (extension: StoredClusterExtension) =>
  extension.status?.install?.bundle.version === version && conditionOf(extension, 'Progressing')?.reason === 'Succeeded';
const progressingMessage = (pattern: RegExp) => (extension: StoredClusterExtension) => pattern.test(conditionOf(extension, 'Progressing')?.message ?? '');

describe('ClusterExtension controller on the local API server, with catalogd serving the example catalog over HTTPS', { timeout: 120_000 }, () => {
  let v1: V1Cluster;
  const setCatalog = async (name: string, catalog: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
    const live = (await v1.get(name))!;
    await v1.cluster.client.replace({ ...live, spec: { ...live.spec, ...extra, source: { sourceType: 'Catalog', catalog: { ...live.spec.source.catalog, ...catalog } } } });
  };

  beforeAll(async () => {
    v1 = await startV1Cluster();
  });
  afterAll(() => v1?.stop());

  it('says when no bundle matches, in upstream\'s words, with the deprecation status Unknown and nothing installed', async () => {
    await v1.cluster.client.create(clusterExtension('no-such-package', { packageName: 'acme-nothing' }));
    const extension = await v1.until('no-such-package', progressingMessage(/no bundles found/), 'resolution failure');
    expect(conditionOf(extension, 'Progressing')).toEqual({ status: 'True', reason: 'Retrying', message: 'no bundles found for package "acme-nothing"' });
    expect(conditionOf(extension, 'Installed')).toEqual({ status: 'False', reason: 'Failed', message: 'No bundle installed' });
    expect(conditionOf(extension, 'Deprecated')).toMatchObject({ status: 'Unknown' });
    expect(conditionOf(extension, 'BundleDeprecated')).toMatchObject({ status: 'Unknown', reason: 'Absent' });
    expect(extension.metadata.finalizers).toEqual([ClusterExtensionCleanupFinalizer]);
    for (const condition of extension.status?.conditions ?? []) expect(condition.observedGeneration).toBe(extension.metadata.generation);
  });

  it('blocks an invalid version range (the local server does not run the CRD\'s CEL) with Masterminds\' error', async () => {
    await v1.cluster.client.create(clusterExtension('bad-range', { packageName: 'acme-database', version: '1.2.3.4' }));
    const extension = await v1.until('bad-range', progressingMessage(/invalid/), 'invalid range');
    expect(conditionOf(extension, 'Progressing')).toEqual({ status: 'False', reason: 'Blocked', message: 'desired version range "1.2.3.4" is invalid: improper constraint: 1.2.3.4' });
  });

  it('lists every permission a ServiceAccount without rights lacks, and writes nothing', async () => {
    await v1.cluster.client.create(clusterExtension('no-rights', { packageName: 'acme-database', version: '1.0.0' }, { serviceAccount: { name: 'nobody' } }));
    const extension = await v1.until('no-rights', progressingMessage(/pre-authorization failed/), 'preflight failure');
    const message = conditionOf(extension, 'Progressing')!.message;
    expect(conditionOf(extension, 'Progressing')).toMatchObject({ status: 'True', reason: 'Retrying' });
    expect(message.startsWith('pre-authorization failed: service account requires the following permissions to manage cluster extension:\n')).toBe(true);
    expect(message).toContain('Namespace:"" APIGroups:[apiextensions.k8s.io] Resources:[customresourcedefinitions] Verbs:[create,list,watch]');
    expect(message).toMatch(/Namespace:"acme-system" APIGroups:\[apps\] Resources:\[deployments\] ResourceNames:\[[a-z-]+\] Verbs:\[delete,get,patch,update\]/);
    expect(message.endsWith('for resolved bundle "acme-database.v1.0.0" with version "1.0.0"')).toBe(true);
    expect(conditionOf(extension, 'Installed')).toMatchObject({ status: 'False', reason: 'Failed' });
    expect(await v1.cluster.client.find(databaseCrd)).toBeUndefined();
    await v1.cluster.client.delete({ ...Kinds.clusterExtension, name: 'no-rights' });
    await v1.gone('no-rights');
  });

  it('installs, refuses a version without an upgrade edge under CatalogProvided, moves anywhere under SelfCertified, and uninstalls everything', async () => {
    // acme-database: 1.1.1 is deprecated, so 1.1.x resolves to 1.1.0 (upstream sorts deprecated bundles last)
    await v1.cluster.client.create(clusterExtension('acme-database', { packageName: 'acme-database', version: '1.1.x' }));
    let extension = await v1.until('acme-database', installedVersion('1.1.0'), '1.1.0 installed');
    expect(extension.status?.install).toEqual({ bundle: { name: 'acme-database.v1.1.0', version: '1.1.0' } });
    expect(conditionOf(extension, 'Installed')).toEqual({ status: 'True', reason: 'Succeeded', message: 'Installed bundle registry.example.com/acme/acme-database-bundle:v1.1.0 successfully' });
    expect(conditionOf(extension, 'Progressing')).toEqual({ status: 'True', reason: 'Succeeded', message: 'Desired state reached' });
    for (const type of ['Deprecated', 'PackageDeprecated', 'ChannelDeprecated', 'BundleDeprecated']) expect(conditionOf(extension, type)).toEqual({ status: 'False', reason: 'NotDeprecated', message: '' });
    expect(await v1.cluster.client.find(databaseCrd)).toBeDefined();
    const deployments = await v1.cluster.client.list({ apiVersion: 'apps/v1', kind: 'Deployment' }, { namespace: 'acme-system' });
    expect(deployments.items.length).toBeGreaterThan(0);

    // 1.0.0 is older: no edge from 1.1.0 leads to it
    await setCatalog('acme-database', { version: '1.0.0' });
    extension = await v1.until('acme-database', progressingMessage(/no bundles found/), 'no upgrade edge');
    expect(conditionOf(extension, 'Progressing')).toEqual({
      status: 'True',
      reason: 'Retrying',
      message: 'error upgrading from currently installed version "1.1.0": no bundles found for package "acme-database" matching version "1.0.0"',
    });
    expect(extension.status?.install?.bundle.version).toBe('1.1.0');
    expect(conditionOf(extension, 'Installed')).toMatchObject({ status: 'True', reason: 'Succeeded' });

    await setCatalog('acme-database', { upgradeConstraintPolicy: 'SelfCertified' });
    await v1.until('acme-database', installedVersion('1.0.0'), 'downgraded to 1.0.0');

    // 1.2.0 replaces 1.1.0, not 1.0.0: no edge from 1.0.0 under CatalogProvided
    await setCatalog('acme-database', { version: '1.2.0', upgradeConstraintPolicy: 'CatalogProvided' });
    extension = await v1.until('acme-database', progressingMessage(/no bundles found/), 'no edge to 1.2.0');
    expect(conditionOf(extension, 'Progressing')?.message).toBe('error upgrading from currently installed version "1.0.0": no bundles found for package "acme-database" matching version "1.2.0"');
    expect(extension.status?.install?.bundle.version).toBe('1.0.0');
    await setCatalog('acme-database', { upgradeConstraintPolicy: 'SelfCertified' });
    await v1.until('acme-database', installedVersion('1.2.0'), 'upgraded to 1.2.0');

    // a deprecated bundle asked for by version installs, and says so
    await setCatalog('acme-database', { version: '1.1.1' });
    extension = await v1.until('acme-database', installedVersion('1.1.1'), '1.1.1 installed');
    const notice = 'acme-database.v1.1.1 can lose backups on restart; upgrade to acme-database.v1.2.0.';
    expect(conditionOf(extension, 'BundleDeprecated')).toEqual({ status: 'True', reason: 'Deprecated', message: notice });
    expect(conditionOf(extension, 'Deprecated')).toEqual({ status: 'True', reason: 'Deprecated', message: notice });
    expect(conditionOf(extension, 'PackageDeprecated')).toEqual({ status: 'False', reason: 'NotDeprecated', message: '' });

    await v1.cluster.client.delete({ ...Kinds.clusterExtension, name: 'acme-database' });
    await v1.gone('acme-database');
    expect(await v1.cluster.client.find(databaseCrd)).toBeUndefined();
    expect((await v1.cluster.client.list({ apiVersion: 'apps/v1', kind: 'Deployment' }, { namespace: 'acme-system' })).items).toEqual([]);
  });

  it('blocks a CRD-breaking upgrade under Strict, naming the CRD, version, field and rule, and applies it under None', async () => {
    await v1.cluster.client.create(clusterExtension('crd-safety', { packageName: 'acme-database', version: '1.0.0' }));
    await v1.until('crd-safety', installedVersion('1.0.0'), '1.0.0 installed');
    // the live CRD allows one more engine than the next bundle's: upgrading would narrow the enum
    const live = await v1.cluster.client.get<Record<string, any>>(databaseCrd);
    live.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.engine.enum = ['postgres', 'mysql', 'oracle'];
    await v1.cluster.client.replace(live);
    await setCatalog('crd-safety', { version: '1.2.0', upgradeConstraintPolicy: 'SelfCertified' });
    let extension = await v1.until('crd-safety', progressingMessage(/validating upgrade/), 'CRD upgrade blocked');
    expect(conditionOf(extension, 'Progressing')).toMatchObject({ status: 'True', reason: 'Retrying' });
    expect(conditionOf(extension, 'Progressing')?.message).toMatch(/^validating upgrade for CRD "databases\.acme\.example\.com": v1: \^\.spec\.engine: enum: .*oracle.* for resolved bundle "acme-database\.v1\.2\.0" with version "1\.2\.0"$/s);
    expect(extension.status?.install?.bundle.version).toBe('1.0.0');

    await setCatalog('crd-safety', {}, { install: { preflight: { crdUpgradeSafety: { enforcement: 'None' } } } });
    extension = await v1.until('crd-safety', installedVersion('1.2.0'), '1.2.0 installed under None');
    expect(conditionOf(extension, 'Installed')).toMatchObject({ status: 'True', reason: 'Succeeded' });
    await v1.cluster.client.delete({ ...Kinds.clusterExtension, name: 'crd-safety' });
    await v1.gone('crd-safety');
  });
  it('says so in a condition when its revision records cannot be read, rather than retrying silently', async () => {
    // Eleven records OLM did not write (more than twice maxRevisions, 5): the applier refuses to read them.
    for (let number = 1; number <= 11; number++) {
      await v1.cluster.client.create({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name: `foreign-record-${number}`,
          namespace: 'olmv1-system',
          labels: { ...ownerLabels('foreign-records'), 'olm.operatorframework.io/revision': String(number), 'olm.operatorframework.io/revision-state': 'Archived' },
        },
      });
    }
    await v1.cluster.client.create(clusterExtension('foreign-records', { packageName: 'acme-database', version: '1.0.0' }));
    const extension = await v1.until('foreign-records', progressingMessage(/revision records/), 'unreadable records reported');
    expect(conditionOf(extension, 'Progressing')).toMatchObject({ status: 'True', reason: 'Retrying' });
    expect(conditionOf(extension, 'Progressing')?.message).toContain('has 11 revision records in olmv1-system, more than twice maxRevisions (5) allows');
    expect(extension.status?.install).toBeUndefined();
  });
});
