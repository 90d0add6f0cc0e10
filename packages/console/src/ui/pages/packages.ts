import { getJson } from '../api.js';
import { h, problem, table } from '../dom.js';
import type { Page } from '../page.js';

/** The packages visible from the namespace, filtered as one types (name, catalog, provider, description). */
export const packagesPage: Page = {
  title: 'Packages',
  live: false,
  async render(context) {
    const view = await getJson('/api/packages', { namespace: context.namespace });
    const section = h('section', { 'aria-labelledby': 'page-title' }, h('h1', { id: 'page-title' }, 'Packages'));
    if (!view.served) {
      section.append(problem('The packages.operators.coreos.com API (PackageManifests) is not served: start the packageserver (olm packageserver).'));
      return section;
    }
    const results = h('div', { id: 'package-results' });
    const count = h('p', { role: 'status', class: 'muted' });
    const search = h('input', { type: 'search', id: 'package-search', name: 'search', placeholder: 'name, catalog, provider…', autocomplete: 'off' });
    const show = () => {
      const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
      const matching = view.packages.filter((item: any) => {
        const text = `${item.name} ${item.catalog} ${item.catalogDisplayName} ${item.provider} ${item.description}`.toLowerCase();
        return words.every((word) => text.includes(word));
      });
      count.textContent = `${matching.length} of ${view.packages.length} packages`;
      results.replaceChildren(
        table(
          `Packages visible from namespace ${context.namespace}`,
          ['Package', 'Catalog', 'Provider', 'Default channel', 'Channels'],
          matching.map((item: any) => [
            h('a', { href: `#/packages/${encodeURIComponent(item.catalogNamespace)}/${encodeURIComponent(item.catalog)}/${encodeURIComponent(item.name)}` }, item.name, item.deprecation ? h('span', { class: 'deprecated' }, ' (deprecated)') : null),
            `${item.catalogNamespace}/${item.catalog}`,
            item.provider,
            item.defaultChannel,
            item.channels.map((channel: any) => channel.name).join(', '),
          ]),
        ),
      );
    };
    search.addEventListener('input', show);
    show();
    section.append(h('div', { role: 'search' }, h('label', { for: 'package-search' }, 'Search packages '), search), count, results);
    return section;
  },
};
