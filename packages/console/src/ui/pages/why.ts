import { getJson } from '../api.js';
import { h } from '../dom.js';
import type { Page } from '../page.js';

/** A Subscription's "why": the same explanation `olm explain` prints. */
export const whyPage: Page = {
  title: 'Why',
  live: true,
  async render(context) {
    const name = decodeURIComponent(context.parts[0] ?? '');
    const { explanation, text } = await getJson('/api/explain', { namespace: context.namespace, subscription: name });
    return h(
      'section',
      { 'aria-labelledby': 'page-title' },
      h('h1', { id: 'page-title' }, `Why: ${explanation.package} in ${explanation.namespace}`),
      h('h2', {}, 'Findings'),
      h(
        'ul',
        { class: 'findings' },
        ...explanation.findings.map((finding: any) => h('li', {}, h('p', { class: 'why' }, finding.why), finding.todo ? h('p', { class: 'todo' }, h('strong', {}, 'What to do: '), finding.todo) : null)),
      ),
      h('h2', {}, 'As olm explain prints it'),
      h('pre', { class: 'explanation', tabindex: 0, 'aria-label': 'olm explain output' }, text),
    );
  },
};
