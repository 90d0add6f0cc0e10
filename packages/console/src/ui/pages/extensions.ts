import { getJson } from '../api.js';
import { conditionList, h, table } from '../dom.js';
import type { Page } from '../page.js';

export const extensionsPage: Page = {
  title: 'Cluster extensions',
  live: true,
  async render() {
    const view = await getJson('/api/extensions');
    const body = view.served
      ? table('ClusterExtensions (olm.operatorframework.io/v1)', ['Name', 'Package', 'Namespace', 'Installed bundle', 'Conditions'], view.items.map((item: any) => [item.name, item.package, item.namespace, item.installed, conditionList(item.conditions)]))
      : h('p', { class: 'muted' }, 'The olm.operatorframework.io/v1 API (ClusterExtension) is not served by this cluster.');
    return h('section', { 'aria-labelledby': 'page-title' }, h('h1', { id: 'page-title' }, 'Cluster extensions'), body);
  },
};
