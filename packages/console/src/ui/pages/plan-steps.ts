import { h } from '../dom.js';

/** A plan's steps, one list per operator (the first is what was asked for, the rest came along). */
export function stepsByOperator(operators: ReadonlyArray<{ operator: string; steps: ReadonlyArray<{ kind: string; name: string; status: string }> }>): Node {
  return h(
    'ul',
    { class: 'plan-operators' },
    ...operators.map((group) =>
      h(
        'li',
        {},
        h('strong', { class: 'plan-operator' }, group.operator || '(no operator)'),
        ` — ${group.steps.length} step${group.steps.length === 1 ? '' : 's'}`,
        h('ul', {}, ...group.steps.map((step) => h('li', {}, `${step.kind} ${step.name}`, step.status ? h('span', { class: 'muted' }, ` (${step.status})`) : null))),
      ),
    ),
  );
}
