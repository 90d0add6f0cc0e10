import { describe, expect, it } from 'vitest';
import { silentLogger } from '@olm/controller-runtime';
import type { CachedObject, ObjectReader } from '@olm/core';
import { createCatalogEvents } from '../catalog-sources/catalog-events.js';
import type { CatalogControllerContext } from '../controller-context.js';
import { Kinds, type CsvObject } from '../kinds.js';
import { installedOperators } from './installed-operators.js';
import { createNamespaceResolutionReconciler } from './namespace-resolution-reconciler.js';
import { isUnsafeFailForward } from './namespace-snapshot.js';

describe('namespaces resolved again when a catalog changes', () => {
  it('are those holding Subscriptions: learnt from their events, forgotten once they have none', async () => {
    const catalogEvents = createCatalogEvents(silentLogger);
    const context = { globalCatalogNamespace: 'olm', logger: silentLogger, catalogEvents } as unknown as CatalogControllerContext;
    const reconciler = createNamespaceResolutionReconciler(context);
    const watch = (kind: string) => reconciler.watches!.find((candidate) => candidate.kind === kind)!;
    const subscription = (namespace: string): CachedObject => ({ ...Kinds.subscription, metadata: { name: 'sub', namespace } });
    const emptyCache: ObjectReader = { get: () => undefined, list: () => [] };
    watch('Subscription').map!(subscription('team-a'), emptyCache);
    watch('Subscription').map!(subscription('team-b'), emptyCache);
    const globalCatalog: CachedObject = { ...Kinds.catalogSource, metadata: { name: 'catalog', namespace: 'olm' } };
    expect(watch('CatalogSource').map!(globalCatalog, emptyCache)).toEqual([{ name: 'team-a' }, { name: 'team-b' }]);
    // the same namespaces when a catalog's registry may serve other content (restarted behind its address)
    const requested: unknown[] = [];
    const unsubscribe = reconciler.eventSources![0]!.subscribe((request) => requested.push(request));
    catalogEvents.contentChanged.emit({ namespace: 'olm', name: 'catalog' });
    catalogEvents.contentChanged.emit({ namespace: 'team-c', name: 'own-catalog' });
    unsubscribe();
    catalogEvents.contentChanged.emit({ namespace: 'team-d', name: 'own-catalog' });
    expect(requested).toEqual([{ name: 'team-a' }, { name: 'team-b' }, { name: 'team-c' }]);
    // team-a's namespace was deleted with its Subscription: its next pass forgets it.
    await reconciler.reconcile({ name: 'team-a' }, { cache: emptyCache, signal: new AbortController().signal, logger: silentLogger, retries: 0 });
    expect(watch('CatalogSource').map!(globalCatalog, emptyCache)).toEqual([{ name: 'team-b' }]);
  });
});

describe('copied CSVs and namespace resolution', () => {
  it('queue no pass for a copy, unless a Subscription of its namespace names it; a CSV that is no copy queues its namespace', () => {
    const context = { globalCatalogNamespace: 'olm', logger: silentLogger, catalogEvents: createCatalogEvents(silentLogger) } as unknown as CatalogControllerContext;
    const watch = createNamespaceResolutionReconciler(context).watches!.find((candidate) => candidate.kind === 'ClusterServiceVersion')!;
    const csv = (namespace: string, name: string, labels: Record<string, string> = {}): CachedObject => ({ ...Kinds.clusterServiceVersion, metadata: { namespace, name, labels } });
    const subscriptionNaming = (namespace: string, currentCSV: string): CachedObject => ({ ...Kinds.subscription, metadata: { namespace, name: 'sub' }, status: { currentCSV } });
    const cacheOf = (objects: CachedObject[]): ObjectReader => ({
      get: () => undefined,
      // A fake holding plain objects of the kinds asked for: typed reads see them as the kind's type.
      list: (kind, options) => objects.filter((object) => object.kind === kind.kind && object.metadata?.namespace === options?.namespace) as never,
    });
    const copy = csv('team-a', 'operator.v1', { 'olm.copiedFrom': 'operators' });
    expect(watch.map!(copy, cacheOf([]))).toEqual([]);
    expect(watch.map!(copy, cacheOf([subscriptionNaming('team-a', 'other.v1')]))).toEqual([]);
    expect(watch.map!(copy, cacheOf([subscriptionNaming('team-a', 'operator.v1')]))).toEqual([{ name: 'team-a' }]);
    expect(watch.map!(csv('team-a', 'own.v1'), cacheOf([]))).toEqual([{ name: 'team-a' }]);
  });
});

describe('isUnsafeFailForward', () => {
  const group = (upgradeStrategy: unknown) => ({ apiVersion: 'operators.coreos.com/v1', kind: 'OperatorGroup', metadata: { name: 'og' }, spec: { upgradeStrategy } });

  it('reads the string form current OLM writes', () => {
    expect(isUnsafeFailForward(group('TechPreviewUnsafeFailForward'))).toBe(true);
    expect(isUnsafeFailForward(group('Default'))).toBe(false);
    expect(isUnsafeFailForward(group('UnsafeFailForward'))).toBe(false);
  });

  it('reads the object form older OLM releases wrote', () => {
    expect(isUnsafeFailForward(group({ name: 'UnsafeFailForward' }))).toBe(true);
    expect(isUnsafeFailForward(group({ name: 'TechPreviewUnsafeFailForward' }))).toBe(true);
    expect(isUnsafeFailForward(group({ name: 'Default' }))).toBe(false);
  });

  it('is off without a strategy', () => {
    expect(isUnsafeFailForward(group(undefined))).toBe(false);
    expect(isUnsafeFailForward({})).toBe(false);
  });
});

describe('installedOperators', () => {
  const csv = (name: string, spec: Partial<CsvObject['spec']>, annotations?: Record<string, string>, extra: Partial<CsvObject> = {}): CsvObject => ({
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: { name, namespace: 'ns', ...(annotations ? { annotations } : {}) },
    spec: { displayName: name, install: { strategy: 'deployment' }, ...spec },
    ...extra,
  });

  it('takes provided and required APIs from CRDs and APIServices, and leaves copies out', () => {
    const operators = installedOperators('ns', [
      csv('a.v1', {
        version: '1.0.0',
        replaces: 'a.v0',
        customresourcedefinitions: { owned: [{ name: 'widgets.acme.io', version: 'v1', kind: 'Widget' }], required: [{ name: 'gadgets.acme.io', version: 'v2', kind: 'Gadget' }] },
        apiservicedefinitions: { owned: [{ group: 'metrics.acme.io', version: 'v1beta1', kind: 'Usage', name: 'usages' }], required: [{ group: 'auth.acme.io', version: 'v1', kind: 'Token', name: 'tokens' }] },
      }, undefined, { status: { phase: 'Succeeded' } }),
      csv('copy.v1', {}, undefined, { metadata: { name: 'copy.v1', namespace: 'ns', labels: { 'olm.copiedFrom': 'other' } } }),
    ]);
    expect(operators).toEqual([
      {
        name: 'a.v1',
        version: '1.0.0',
        replaces: 'a.v0',
        phase: 'Succeeded',
        providedApis: [{ group: 'acme.io', version: 'v1', kind: 'Widget' }, { group: 'metrics.acme.io', version: 'v1beta1', kind: 'Usage' }],
        requiredApis: [{ group: 'acme.io', version: 'v2', kind: 'Gadget' }, { group: 'auth.acme.io', version: 'v1', kind: 'Token' }],
      },
    ]);
  });

  it('uses the properties annotation, even an empty list', () => {
    const property = { type: 'olm.package', value: { packageName: 'a', version: '1.0.0' } };
    expect(installedOperators('ns', [csv('a.v1', {}, { 'operatorframework.io/properties': JSON.stringify({ properties: [property] }) })])[0]!.properties).toEqual([property]);
    expect(installedOperators('ns', [csv('a.v1', {}, { 'operatorframework.io/properties': '{}' })])[0]!.properties).toEqual([]);
  });

  it('fails the namespace with upstream wording for a malformed annotation or CRD name', () => {
    expect(() => installedOperators('ns', [csv('a.v1', {}, { 'operatorframework.io/properties': '{"properties": [' })])).toThrow(
      /^error using catalogsource ns\/@existing: failed to retrieve properties of csv "a\.v1": /,
    );
    expect(() => installedOperators('ns', [csv('a.v1', {}, { 'operatorframework.io/properties': '{"properties": [1]}' })])).toThrow(/must be a list of/);
    expect(() => installedOperators('ns', [csv('a.v1', { customresourcedefinitions: { owned: [{ name: 'widgets', version: 'v1', kind: 'Widget' }] } })])).toThrow(
      'error using catalogsource ns/@existing: error parsing crd name: widgets',
    );
  });
});
