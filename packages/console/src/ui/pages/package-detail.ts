import { getJson } from '../api.js';
import { append, h, problem } from '../dom.js';
import type { Page, PageContext } from '../page.js';
import { installForm } from './install-form.js';

/** One package: its channels and versions, the update graph picture, and the install form. */
export const packageDetailPage: Page = {
  title: 'Package',
  live: false,
  async render(context) {
    const [catalogNamespace, catalog, packageName] = context.parts.map(decodeURIComponent);
    const view = await getJson('/api/packages', { namespace: context.namespace });
    const item = view.packages.find((candidate: any) => candidate.name === packageName && candidate.catalog === catalog && candidate.catalogNamespace === catalogNamespace);
    const section = h('section', { 'aria-labelledby': 'page-title' }, h('h1', { id: 'page-title' }, packageName ?? ''));
    if (!item) {
      section.append(problem(`package ${packageName} of catalog ${catalogNamespace}/${catalog} is not visible from namespace ${context.namespace}`));
      return section;
    }
    append(
      section,
      h('p', {}, item.description || h('span', { class: 'muted' }, 'no description')),
      h('p', {}, `Catalog ${item.catalogNamespace}/${item.catalog}${item.provider ? `, provided by ${item.provider}` : ''}. Default channel: ${item.defaultChannel}.`),
      item.deprecation ? h('p', { class: 'deprecated' }, `Deprecated: ${item.deprecation}`) : null,
      channelList(item),
      await graphFigure(context, item),
      installForm(context, item),
    );
    return section;
  },
};

function channelList(item: any): Node {
  return h(
    'section',
    { 'aria-labelledby': 'channels-title' },
    h('h2', { id: 'channels-title' }, 'Channels'),
    h(
      'ul',
      {},
      ...item.channels.map((channel: any) =>
        h(
          'li',
          {},
          h('strong', {}, channel.name),
          ` (head ${channel.head})`,
          channel.deprecation ? h('span', { class: 'deprecated' }, ` deprecated: ${channel.deprecation}`) : null,
          ': ',
          channel.entries.map((entry: any) => `${entry.version ?? entry.name}${entry.deprecation ? ' (deprecated)' : ''}`).join(', '),
        ),
      ),
    ),
  );
}

async function graphFigure(context: PageContext, item: any): Promise<Node> {
  const figure = h('figure', { class: 'graph', 'aria-labelledby': 'graph-heading' }, h('h2', { id: 'graph-heading' }, 'Update graph'));
  try {
    const graph = await getJson('/api/packages/graph', { namespace: context.namespace, package: item.name, catalog: item.catalog, catalogNamespace: item.catalogNamespace });
    // The picture is renderSvg's output (every text escaped by it), the same as `olm catalog graph --format svg`.
    const picture = h('div', { class: 'graph-picture', id: 'graph-picture' });
    picture.innerHTML = graph.svg;
    figure.append(
      picture,
      h(
        'figcaption',
        {},
        graph.installed ? `Installed in ${context.namespace}: ${graph.installed} (filled). ` : `Nothing of it is installed in ${context.namespace}. `,
        'Thick border: channel head; red: deprecated; arcs: replaces (above), skips and skipRange (below).',
        graph.note ? h('span', { class: 'note' }, ` ${graph.note}`) : null,
      ),
    );
  } catch (error) {
    figure.append(problem(error));
  }
  return figure;
}
