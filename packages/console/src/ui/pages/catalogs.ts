import { getJson } from '../api.js';
import { conditionList, h, table } from '../dom.js';
import type { Page } from '../page.js';

export const catalogsPage: Page = {
  title: 'Catalogs',
  live: true,
  async render() {
    const view = await getJson('/api/catalogs');
    const sources = table(
      'CatalogSources',
      ['Name', 'Namespace', 'Display name', 'Type', 'Address', 'Connection', 'Message'],
      view.catalogSources.map((source: any) => [
        source.name,
        source.namespace,
        source.displayName,
        source.sourceType,
        h('code', {}, source.address),
        h('span', { class: `state state-${String(source.connectionState).toLowerCase()}` }, source.connectionState),
        source.message,
      ]),
    );
    const clusterCatalogs = view.clusterCatalogsServed
      ? table(
          'ClusterCatalogs (olm.operatorframework.io/v1)',
          ['Name', 'Image', 'Availability', 'Resolved', 'Conditions'],
          view.clusterCatalogs.map((catalog: any) => [catalog.name, h('code', {}, catalog.image), catalog.availability, h('code', {}, catalog.resolvedSource), conditionList(catalog.conditions)]),
        )
      : h('p', { class: 'muted' }, 'ClusterCatalogs: the olm.operatorframework.io/v1 API is not served by this cluster.');
    return h('section', { 'aria-labelledby': 'page-title' }, h('h1', { id: 'page-title' }, 'Catalogs'), sources, clusterCatalogs);
  },
};
