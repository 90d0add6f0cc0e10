import { getJson } from '../api.js';
import { conditionList, h } from '../dom.js';
import type { Page } from '../page.js';

/** Installed operators of the namespace: Subscription, CSV phase and conditions, components, OperatorConditions. */
export const operatorsPage: Page = {
  title: 'Installed operators',
  live: true,
  async render(context) {
    const view = await getJson('/api/operators', { namespace: context.namespace });
    const section = h('section', { 'aria-labelledby': 'page-title' }, h('h1', { id: 'page-title' }, `Installed operators in ${context.namespace}`));
    if (view.operators.length === 0) section.append(h('p', { class: 'muted' }, `No Subscription in namespace ${context.namespace}.`));
    if (view.componentsNote) section.append(h('p', { class: 'muted' }, view.componentsNote));
    for (const operator of view.operators) section.append(operatorCard(operator));
    return section;
  },
};

function operatorCard(operator: any): Node {
  const id = `operator-${operator.subscription}`;
  return h(
    'article',
    { class: 'card', 'aria-labelledby': id },
    h('h2', { id }, operator.package, h('span', { class: 'muted' }, ` (Subscription ${operator.subscription})`)),
    h(
      'dl',
      {},
      h('dt', {}, 'Channel'),
      h('dd', {}, operator.channel || '(default)'),
      h('dt', {}, 'Catalog'),
      h('dd', {}, operator.catalog),
      h('dt', {}, 'Approval'),
      h('dd', {}, operator.approval),
      h('dt', {}, 'State'),
      h('dd', {}, operator.state || 'not reported'),
      h('dt', {}, 'CSV'),
      h('dd', {}, operator.csv ? h('span', {}, `${operator.csv.name} `, h('span', { class: `phase phase-${operator.csv.phase.toLowerCase()}` }, operator.csv.phase || 'no phase'), operator.csv.message ? `: ${operator.csv.message}` : '') : 'none yet'),
    ),
    h('h3', {}, 'Subscription conditions'),
    conditionList(operator.conditions),
    operator.csv && operator.csv.conditions.length > 0
      ? h('details', {}, h('summary', {}, 'CSV phase history'), h('ol', {}, ...operator.csv.conditions.map((condition: any) => h('li', {}, `${condition.phase} (${condition.reason}) ${condition.message}`))))
      : null,
    h('h3', {}, 'Components'),
    operator.components.length === 0
      ? h('p', { class: 'muted' }, 'none listed')
      : h('ul', {}, ...operator.components.map((component: any) => h('li', {}, `${component.kind} ${component.namespace ? `${component.namespace}/` : ''}${component.name}`, component.conditions.length ? ` — ${component.conditions.map((c: any) => `${c.type}=${c.status}`).join(', ')}` : ''))),
    h('h3', {}, 'OperatorConditions'),
    conditionList(operator.operatorConditions),
    h('p', {}, h('a', { href: `#/why/${encodeURIComponent(operator.subscription)}`, class: 'button-link' }, `Why is ${operator.package} where it is?`)),
  );
}
