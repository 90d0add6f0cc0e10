import { checkStructural, compileSchema } from '@olm/structural-schema';
import { describe, expect, it } from 'vitest';
import { crds, crdsByKind, findCrd, findCrdVersion, storageApiVersion } from './crds.js';

describe('crds', () => {
  it('defines the eight operators.coreos.com CRDs and OLM v1\'s ClusterCatalog and ClusterExtension with plural.group names', () => {
    expect(crds.map((crd) => crd.metadata.name)).toEqual([
      'catalogsources.operators.coreos.com',
      'clustercatalogs.olm.operatorframework.io',
      'clusterextensions.olm.operatorframework.io',
      'clusterserviceversions.operators.coreos.com',
      'installplans.operators.coreos.com',
      'olmconfigs.operators.coreos.com',
      'operatorconditions.operators.coreos.com',
      'operatorgroups.operators.coreos.com',
      'operators.operators.coreos.com',
      'subscriptions.operators.coreos.com',
    ]);
    for (const crd of crds) expect(crd.metadata.name).toBe(`${crd.spec.names.plural}.${crd.spec.group}`);
  });

  it('has only structural schemas that compile', () => {
    for (const crd of crds) {
      crd.spec.versions.forEach((version, index) => {
        expect(checkStructural(version.schema.openAPIV3Schema, { path: `spec.versions[${index}].schema.openAPIV3Schema` }), `${crd.metadata.name} ${version.name}`).toEqual([]);
        expect(() => compileSchema(version.schema.openAPIV3Schema)).not.toThrow();
      });
    }
  });

  it('has exactly one storage version per CRD, all served, with a status subresource and (v0 kinds, as upstream) the olm category', () => {
    for (const crd of crds) {
      expect(crd.spec.versions.filter((version) => version.storage)).toHaveLength(1);
      for (const version of crd.spec.versions) {
        expect(version.served).toBe(true);
        expect(version.subresources).toEqual({ status: {} });
      }
      expect(crd.spec.names.categories).toEqual(crd.spec.group === 'operators.coreos.com' ? ['olm'] : undefined);
      expect(crd.spec.names.listKind).toBe(`${crd.spec.names.kind}List`);
    }
  });

  it('serves the upstream versions, scopes and short names', () => {
    const summary = Object.fromEntries(
      crds.map((crd) => [
        crd.spec.names.kind,
        {
          scope: crd.spec.scope,
          versions: crd.spec.versions.map((version) => `${version.name}${version.storage ? '*' : ''}`),
          shortNames: crd.spec.names.shortNames ?? [],
        },
      ]),
    );
    expect(summary).toEqual({
      CatalogSource: { scope: 'Namespaced', versions: ['v1alpha1*'], shortNames: ['catsrc'] },
      ClusterCatalog: { scope: 'Cluster', versions: ['v1*'], shortNames: [] },
      ClusterExtension: { scope: 'Cluster', versions: ['v1*'], shortNames: [] },
      ClusterServiceVersion: { scope: 'Namespaced', versions: ['v1alpha1*'], shortNames: ['csv', 'csvs'] },
      InstallPlan: { scope: 'Namespaced', versions: ['v1alpha1*'], shortNames: ['ip'] },
      OLMConfig: { scope: 'Cluster', versions: ['v1*'], shortNames: [] },
      OperatorCondition: { scope: 'Namespaced', versions: ['v1', 'v2*'], shortNames: ['condition'] },
      OperatorGroup: { scope: 'Namespaced', versions: ['v1*', 'v1alpha2'], shortNames: ['og'] },
      Operator: { scope: 'Cluster', versions: ['v1*'], shortNames: [] },
      Subscription: { scope: 'Namespaced', versions: ['v1alpha1*'], shortNames: ['sub', 'subs'] },
    });
  });

  it('declares the upstream printer columns', () => {
    const columns = (kind: string) =>
      crdsByKind.get(kind)?.spec.versions[0]?.additionalPrinterColumns?.map((column) => `${column.name}=${column.type}:${column.jsonPath}`);
    expect(columns('ClusterServiceVersion')).toEqual([
      'Display=string:.spec.displayName',
      'Version=string:.spec.version',
      'Release=string:.spec.release',
      'Replaces=string:.spec.replaces',
      'Phase=string:.status.phase',
    ]);
    expect(columns('Subscription')).toEqual(['Package=string:.spec.name', 'Source=string:.spec.source', 'Channel=string:.spec.channel']);
    expect(columns('InstallPlan')).toEqual(['CSV=string:.spec.clusterServiceVersionNames[0]', 'Approval=string:.spec.approval', 'Approved=boolean:.spec.approved']);
    expect(columns('CatalogSource')).toEqual([
      'Display=string:.spec.displayName',
      'Type=string:.spec.sourceType',
      'Publisher=string:.spec.publisher',
      'Age=date:.metadata.creationTimestamp',
    ]);
    expect(columns('ClusterCatalog')).toEqual([
      'LastUnpacked=date:.status.lastUnpacked',
      'Serving=string:.status.conditions[?(@.type=="Serving")].status',
      'Age=date:.metadata.creationTimestamp',
    ]);
    expect(columns('ClusterExtension')).toEqual([
      'Installed Bundle=string:.status.install.bundle.name',
      'Version=string:.status.install.bundle.version',
      "Installed=string:.status.conditions[?(@.type=='Installed')].status",
      "Progressing=string:.status.conditions[?(@.type=='Progressing')].status",
      'Age=date:.metadata.creationTimestamp',
    ]);
    // Upstream declares none for these (kubectl then shows NAME and AGE).
    for (const kind of ['OperatorGroup', 'OperatorCondition', 'Operator', 'OLMConfig']) expect(columns(kind), kind).toBeUndefined();
  });

  it('serves OperatorGroup v1alpha2 in its older shape: no upgradeStrategy, no conditions, plain lists', () => {
    const schemaOf = (name: string) => crdsByKind.get('OperatorGroup')?.spec.versions.find((version) => version.name === name)?.schema.openAPIV3Schema;
    const [v1, v1alpha2] = [schemaOf('v1'), schemaOf('v1alpha2')];
    expect(Object.keys(v1?.properties?.spec?.properties ?? {})).toEqual(['selector', 'serviceAccountName', 'staticProvidedAPIs', 'targetNamespaces', 'upgradeStrategy']);
    expect(Object.keys(v1alpha2?.properties?.spec?.properties ?? {})).toEqual(['selector', 'serviceAccountName', 'staticProvidedAPIs', 'targetNamespaces']);
    expect(Object.keys(v1?.properties?.status?.properties ?? {})).toEqual(['conditions', 'lastUpdated', 'namespaces', 'serviceAccountRef']);
    expect(Object.keys(v1alpha2?.properties?.status?.properties ?? {})).toEqual(['lastUpdated', 'namespaces', 'serviceAccountRef']);
    expect(v1?.properties?.spec?.properties?.upgradeStrategy).toMatchObject({ type: 'string', default: 'Default', enum: ['Default', 'TechPreviewUnsafeFailForward'] });
    expect(v1?.properties?.spec?.default).toEqual({ upgradeStrategy: 'Default' });
    expect(v1alpha2?.properties?.spec?.default).toBeUndefined();
  });

  it('limits CSV spec.release to upstream\'s release grammar', async () => {
    const { validateResource } = await import('./validate-resource.js');
    const csv = (release: string) => ({
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'ClusterServiceVersion',
      metadata: { name: 'x.v1' },
      spec: { displayName: 'X', install: { strategy: 'deployment' }, release },
    });
    const accepted = ['1', '0', '10.2', 'hotfix', 'rc-1.2', '0a', '01a', '-', 'a.b.c.d.e.f.g.h.i.j'];
    const rejected = ['', '01', '1.00', 'a..b', '.a', 'a.', 'build_7', 'a+b', 'ü'];
    for (const release of accepted) expect(validateResource(csv(release)), release).toEqual([]);
    for (const release of rejected) expect(validateResource(csv(release)).map((error) => error.field), release).toEqual(['spec.release']);
    expect(validateResource(csv('a'.repeat(21))).map((error) => error.message)).toEqual(['Too long: may not be longer than 20']);
  });

  it('finds CRDs by kind, plural, short name and CRD name, and versions by apiVersion', () => {
    expect(findCrd('csv')?.spec.names.kind).toBe('ClusterServiceVersion');
    expect(findCrd('Subscription')?.spec.names.plural).toBe('subscriptions');
    expect(findCrd('catalogsources.operators.coreos.com')?.spec.names.kind).toBe('CatalogSource');
    expect(findCrd('og')?.spec.names.kind).toBe('OperatorGroup');
    expect(findCrd('deployment')).toBeUndefined();
    expect(findCrdVersion('operators.coreos.com/v1alpha2', 'OperatorGroup')?.version.name).toBe('v1alpha2');
    expect(findCrdVersion('operators.coreos.com/v1', 'OperatorCondition')?.version.storage).toBe(false);
    expect(findCrdVersion('operators.coreos.com/v1', 'Subscription')).toBeUndefined();
    expect(findCrdVersion('example.com/v1alpha1', 'Subscription')).toBeUndefined();
    expect(findCrdVersion('v1', 'Subscription')).toBeUndefined();
    expect(storageApiVersion('OperatorGroup')).toBe('operators.coreos.com/v1');
    expect(storageApiVersion('OperatorCondition')).toBe('operators.coreos.com/v2');
    expect(storageApiVersion('ClusterCatalog')).toBe('olm.operatorframework.io/v1');
    expect(findCrdVersion('olm.operatorframework.io/v1', 'ClusterCatalog')?.version.storage).toBe(true);
    expect(storageApiVersion('Pod')).toBeUndefined();
  });

  it('hands out fresh copies, and the validator is not affected by changes to the shared array', async () => {
    const { buildCrds } = await import('./crds.js');
    const { validateResource } = await import('./validate-resource.js');
    const copy = buildCrds();
    expect(copy).toEqual(crds);
    expect(copy[0]).not.toBe(crds[0]);
    const subscriptions = crdsByKind.get('Subscription');
    const saved = subscriptions?.spec.versions[0]?.schema.openAPIV3Schema.properties?.spec?.required;
    try {
      if (subscriptions?.spec.versions[0]?.schema.openAPIV3Schema.properties?.spec) {
        subscriptions.spec.versions[0].schema.openAPIV3Schema.properties.spec.required = ['nonsense'];
      }
      expect(validateResource({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'Subscription', metadata: { name: 's' }, spec: {} }).map((e) => e.field)).toEqual([
        'spec.name',
        'spec.source',
        'spec.sourceNamespace',
      ]);
    } finally {
      if (subscriptions?.spec.versions[0]?.schema.openAPIV3Schema.properties?.spec) subscriptions.spec.versions[0].schema.openAPIV3Schema.properties.spec.required = saved;
    }
  });

  it('defaults a ClusterCatalog as upstream (priority 0, availabilityMode Available) and checks its enums and bounds', async () => {
    const { admitResource, validateResource } = await import('./validate-resource.js');
    const catalog = (spec: Record<string, unknown>) => ({ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', metadata: { name: 'c' }, spec });
    const image = { type: 'Image', image: { ref: 'quay.io/operatorhubio/catalog:latest' } };
    expect(admitResource(catalog({ source: image })).object).toMatchObject({ spec: { priority: 0, availabilityMode: 'Available' } });
    expect(validateResource(catalog({ source: { ...image, type: 'Git' } })).map((error) => error.message)).toEqual(['Unsupported value: "Git": supported values: "Image"']);
    expect(validateResource(catalog({ source: image, availabilityMode: 'Off' })).map((error) => error.field)).toEqual(['spec.availabilityMode']);
    expect(validateResource(catalog({ source: { type: 'Image', image: { ref: 'r:1', pollIntervalMinutes: 0 } } })).map((error) => error.field)).toEqual(['spec.source.image.pollIntervalMinutes']);
    expect(new Set(validateResource(catalog({ source: image, priority: 2 ** 31 })).map((error) => error.field))).toEqual(new Set(["spec.priority"]));
    expect(validateResource(catalog({})).map((error) => error.field)).toEqual(['spec.source']);
  });

  it('keeps deep Kubernetes types open and OLM types closed', () => {
    const csv = crdsByKind.get('ClusterServiceVersion')?.spec.versions[0]?.schema.openAPIV3Schema;
    const deployment = (csv?.properties?.spec?.properties?.install?.properties?.spec?.properties?.deployments?.items?.properties?.spec ?? {}) as Record<string, unknown>;
    expect(deployment['x-kubernetes-preserve-unknown-fields']).toBe(true);
    expect(csv?.properties?.spec?.['x-kubernetes-preserve-unknown-fields']).toBeUndefined();
  });
});
