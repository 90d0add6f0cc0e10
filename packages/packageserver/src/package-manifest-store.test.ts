import { parseLabelSelector } from '@olm/controller-runtime';
import { describe, expect, it } from 'vitest';
import { PackageManifestStore, type ManifestEvent } from './package-manifest-store.js';
import type { PackageManifest } from './package-manifest.js';

function manifest(name: string, catalog: { namespace: string; name: string }, extra: { labels?: Record<string, string>; head?: string } = {}): PackageManifest {
  return {
    apiVersion: 'packages.operators.coreos.com/v1',
    kind: 'PackageManifest',
    metadata: { name, namespace: catalog.namespace, labels: { catalog: catalog.name, 'catalog-namespace': catalog.namespace, ...extra.labels } },
    spec: {},
    status: {
      catalogSource: catalog.name,
      catalogSourceDisplayName: catalog.name,
      catalogSourcePublisher: '',
      catalogSourceNamespace: catalog.namespace,
      provider: {},
      packageName: name,
      defaultChannel: 'stable',
      channels: [{ name: 'stable', currentCSV: extra.head ?? `${name}.v1`, currentCSVDesc: { provider: {}, customresourcedefinitions: {}, apiservicedefinitions: {} }, entries: [] }],
    },
  };
}

const global = { namespace: 'olm', name: 'community' };
const certified = { namespace: 'olm', name: 'certified' };
const teamA = { namespace: 'team-a', name: 'team' };
const teamB = { namespace: 'team-b', name: 'team' };

function filled(): PackageManifestStore {
  const store = new PackageManifestStore({ globalNamespace: 'olm', initialRevision: 100 });
  store.replaceCatalog(global, [manifest('etcd', global), manifest('redis', global)]);
  store.replaceCatalog(certified, [manifest('etcd', certified)], { priority: 10 });
  store.replaceCatalog(teamA, [manifest('etcd', teamA), manifest('private', teamA)]);
  store.replaceCatalog(teamB, [manifest('secret', teamB)]);
  return store;
}

const describeItems = (items: PackageManifest[]) => items.map((item) => `${item.metadata.name}@${item.status.catalogSourceNamespace}/${item.status.catalogSource} in ${item.metadata.namespace}`);

describe('PackageManifestStore', () => {
  it('shows a namespace its own catalogs and the global ones, reported in that namespace', () => {
    const store = filled();
    expect(describeItems(store.list('team-a'))).toEqual([
      'etcd@team-a/team in team-a',
      'etcd@olm/certified in team-a',
      'etcd@olm/community in team-a',
      'private@team-a/team in team-a',
      'redis@olm/community in team-a',
    ]);
    expect(describeItems(store.list('elsewhere'))).toEqual(['etcd@olm/certified in elsewhere', 'etcd@olm/community in elsewhere', 'redis@olm/community in elsewhere']);
    expect(describeItems(store.list('olm'))).toEqual(['etcd@olm/certified in olm', 'etcd@olm/community in olm', 'redis@olm/community in olm']);
    // All namespaces: nobody's own, so by priority, then catalog namespace and name.
    expect(describeItems(store.list(undefined))).toEqual([
      'etcd@olm/certified in olm',
      'etcd@olm/community in olm',
      'etcd@team-a/team in team-a',
      'private@team-a/team in team-a',
      'redis@olm/community in olm',
      'secret@team-b/team in team-b',
    ]);
  });

  it('gets the namespace\'s own package first, else the global one of highest priority', () => {
    const store = filled();
    expect(store.get('team-a', 'etcd')?.status.catalogSource).toBe('team');
    expect(store.get('elsewhere', 'etcd')?.status.catalogSource).toBe('certified');
    expect(store.get('elsewhere', 'etcd')?.metadata.namespace).toBe('elsewhere');
    expect(store.get('team-a', 'secret')).toBeUndefined();
  });

  it('filters by label selector and name', () => {
    const store = filled();
    expect(describeItems(store.list('team-a', { labelSelector: parseLabelSelector('catalog=community') }))).toEqual(['etcd@olm/community in team-a', 'redis@olm/community in team-a']);
    expect(describeItems(store.list('team-a', { labelSelector: parseLabelSelector('catalog-namespace!=olm'), name: 'etcd' }))).toEqual(['etcd@team-a/team in team-a']);
  });

  it('versions only what changed and tells listeners ADDED, MODIFIED (with the previous manifest) and DELETED', () => {
    const store = new PackageManifestStore({ globalNamespace: 'olm', initialRevision: 100 });
    const events: ManifestEvent[] = [];
    store.subscribe((event) => events.push(event));
    store.replaceCatalog(global, [manifest('etcd', global), manifest('redis', global)]);
    expect(store.revision).toBe(102);
    expect(store.get('olm', 'etcd')?.metadata.resourceVersion).toBe('101');
    expect(store.replaceCatalog(global, [manifest('etcd', global), manifest('redis', global)])).toEqual([]);
    expect(store.revision).toBe(102);
    store.replaceCatalog(global, [manifest('etcd', global, { head: 'etcd.v2' })]);
    expect(events.map((event) => `${event.type} ${event.manifest.metadata.name} ${event.revision}`)).toEqual(['ADDED etcd 101', 'ADDED redis 102', 'MODIFIED etcd 103', 'DELETED redis 104']);
    expect(events[2]?.previous?.status.channels[0]?.currentCSV).toBe('etcd.v1');
    expect(store.get('olm', 'etcd')?.metadata.resourceVersion).toBe('103');
    store.removeCatalog(global);
    expect(store.list(undefined)).toEqual([]);
    expect(store.catalogKeys()).toEqual([]);
  });

  it('replays retained changes after a revision and refuses revisions it no longer has or never had', () => {
    const store = new PackageManifestStore({ globalNamespace: 'olm', initialRevision: 100, historySize: 2 });
    store.replaceCatalog(global, [manifest('a', global)]);
    store.replaceCatalog(global, [manifest('a', global), manifest('b', global)]);
    expect(store.eventsSince(101)?.map((event) => event.manifest.metadata.name)).toEqual(['b']);
    store.replaceCatalog(global, [manifest('a', global), manifest('b', global), manifest('c', global)]);
    expect(store.eventsSince(100)).toBeUndefined();
    expect(store.eventsSince(101)?.map((event) => event.manifest.metadata.name)).toEqual(['b', 'c']);
    expect(store.eventsSince(103)).toEqual([]);
    expect(store.eventsSince(104)).toBeUndefined();
  });

  it('keeps telling other listeners when one throws', () => {
    const store = new PackageManifestStore({ globalNamespace: 'olm' });
    const heard: string[] = [];
    store.subscribe(() => {
      throw new Error('closed connection');
    });
    store.subscribe((event) => heard.push(event.manifest.metadata.name));
    store.replaceCatalog(global, [manifest('etcd', global)]);
    expect(heard).toEqual(['etcd']);
  });
});
