import { getJson, postJson } from '../api.js';
import { h, problem } from '../dom.js';
import type { Page, PageContext } from '../page.js';
import { stepsByOperator } from './plan-steps.js';

/** InstallPlans of the namespace: those waiting first, with what they change and Approve when the user may. */
export const plansPage: Page = {
  title: 'Plans',
  live: true,
  async render(context) {
    const view = await getJson('/api/plans', { namespace: context.namespace });
    const plans = [...view.plans].sort((a: any, b: any) => Number(b.waiting) - Number(a.waiting) || a.name.localeCompare(b.name));
    const section = h('section', { 'aria-labelledby': 'page-title' }, h('h1', { id: 'page-title' }, `Install plans in ${context.namespace}`));
    const waiting = plans.filter((plan: any) => plan.waiting).length;
    section.append(h('p', {}, waiting === 0 ? 'No plan waits for approval.' : `${waiting} plan${waiting === 1 ? '' : 's'} wait${waiting === 1 ? 's' : ''} for approval.`));
    for (const plan of plans) section.append(planCard(context, plan));
    return section;
  },
};

function planCard(context: PageContext, plan: any): Node {
  const id = `plan-${plan.name}`;
  const status = h('div', { 'aria-live': 'polite' });
  const approve = plan.canApprove
    ? h(
        'button',
        {
          type: 'button',
          class: 'primary',
          id: `approve-${plan.name}`,
          onclick: async (event: Event) => {
            const button = event.currentTarget as HTMLButtonElement;
            button.disabled = true;
            try {
              await postJson('/api/plans/approve', { namespace: context.namespace, name: plan.name });
              context.announce(`InstallPlan ${plan.name} approved`);
              status.replaceChildren(h('p', {}, 'Approved.'));
            } catch (error) {
              status.replaceChildren(problem(error));
              button.disabled = false;
            }
          },
        },
        `Approve ${plan.name}`,
      )
    : null;
  return h(
    'article',
    { class: `card${plan.waiting ? ' waiting' : ''}`, 'aria-labelledby': id },
    h('h2', { id }, `InstallPlan ${plan.name}`),
    h('p', {}, `Phase ${plan.phase || 'not set'}, approval ${plan.approval}${plan.approved ? ', approved' : ''}. Installs ${plan.csvs.join(', ')}.`),
    plan.waiting && !plan.canApprove ? h('p', { class: 'muted' }, 'Waiting for approval; you may not approve it (your access does not allow patching this InstallPlan).') : null,
    stepsByOperator(plan.operators),
    ...plan.changes.map((change: any) =>
      h(
        'details',
        {},
        h('summary', {}, `What approving changes for ${change.csv}${change.from ? ` (from ${change.from})` : ' (first install)'}`),
        changeList('Permissions', change.permissions),
        changeList('Images', change.images),
        h('p', {}, 'CRDs: ', change.crds.length === 0 ? 'none applied' : change.crds.map((crd: any) => `${crd.name}: ${crd.changes.join('; ') || 'schema unchanged'}`).join(' · ')),
      ),
    ),
    plan.changesNote ? h('p', { class: 'muted' }, plan.changesNote) : null,
    approve,
    status,
  );
}

function changeList(title: string, change: { added: string[]; removed: string[] }): Node {
  if (change.added.length === 0 && change.removed.length === 0) return h('p', {}, `${title}: unchanged`);
  return h('div', {}, h('p', {}, `${title}:`), h('ul', {}, ...change.added.map((line) => h('li', { class: 'added' }, `+ ${line}`)), ...change.removed.map((line) => h('li', { class: 'removed' }, `- ${line}`))));
}
