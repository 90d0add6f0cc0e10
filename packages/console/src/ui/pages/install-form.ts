import { getJson, postJson } from '../api.js';
import { h, problem } from '../dom.js';
import type { PageContext } from '../page.js';
import { stepsByOperator } from './plan-steps.js';

const previewPollMs = 1000;
const previewTries = 90;

/**
 * Install: pick channel, version, namespace and approval; "Preview" creates the Subscription with
 * Manual approval so that OLM resolves it, and shows the InstallPlan (every operator that comes
 * along); "Confirm" approves it, "Cancel" deletes what was created.
 */
export function installForm(context: PageContext, item: any): Node {
  const output = h('div', { id: 'install-result', 'aria-live': 'polite' });
  const channel = h('select', { id: 'install-channel', name: 'channel' }, ...item.channels.map((each: any) => h('option', { value: each.name, selected: each.name === item.defaultChannel }, each.name)));
  const version = h('select', { id: 'install-version', name: 'version' });
  const fillVersions = () => {
    const chosen = item.channels.find((each: any) => each.name === channel.value);
    version.replaceChildren(
      h('option', { value: '' }, `latest (${chosen?.head ?? 'channel head'})`),
      ...(chosen?.entries ?? []).map((entry: any) => h('option', { value: entry.name }, `${entry.version ?? entry.name}${entry.deprecation ? ' (deprecated)' : ''}`)),
    );
  };
  channel.addEventListener('change', fillVersions);
  fillVersions();
  const namespace = h('input', { id: 'install-namespace', name: 'namespace', value: context.namespace, required: true, autocomplete: 'off', spellcheck: 'false' });
  const approval = h('select', { id: 'install-approval', name: 'approval' }, h('option', { value: 'Automatic' }, 'Automatic'), h('option', { value: 'Manual' }, 'Manual'));
  const previewButton = h('button', { type: 'submit' }, 'Preview install');
  const form = h(
    'form',
    { class: 'install', 'aria-labelledby': 'install-title' },
    h('label', { for: 'install-channel' }, 'Channel'),
    channel,
    h('label', { for: 'install-version' }, 'Version'),
    version,
    h('label', { for: 'install-namespace' }, 'Install into namespace'),
    namespace,
    h('label', { for: 'install-approval' }, 'Approval of later upgrades'),
    approval,
    previewButton,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    previewButton.disabled = true;
    void preview(context, item, { channel: channel.value, startingCsv: version.value || undefined, namespace: namespace.value.trim(), approval: approval.value }, output).finally(() => (previewButton.disabled = false));
  });
  // The preview sits below the form's grid, whose label column would otherwise stretch to fit it.
  return h('section', { class: 'install-section', 'aria-labelledby': 'install-title' }, h('h2', { id: 'install-title' }, 'Install'), form, output);
}

async function preview(context: PageContext, item: any, choice: { channel: string; startingCsv?: string; namespace: string; approval: string }, output: HTMLElement): Promise<void> {
  output.replaceChildren(h('p', {}, 'Creating the Subscription (Manual approval) and waiting for OLM to resolve it…'));
  try {
    const started = await postJson('/api/install', { package: item.name, catalog: item.catalog, catalogNamespace: item.catalogNamespace, ...choice });
    let result: any;
    for (let tries = 0; tries < previewTries; tries += 1) {
      result = await getJson('/api/install/preview', { namespace: started.namespace, subscription: started.subscription });
      if (result.ready || result.failed) break;
      await new Promise((resolve) => setTimeout(resolve, previewPollMs));
    }
    const cancel = h('button', { type: 'button', onclick: () => void finish('cancel') }, 'Cancel install');
    const confirm = h('button', { type: 'button', class: 'primary', onclick: () => void finish('confirm') }, 'Confirm install');
    const finish = async (action: 'confirm' | 'cancel') => {
      confirm.disabled = cancel.disabled = true;
      try {
        await postJson(`/api/install/${action}`, { namespace: started.namespace, subscription: started.subscription });
        context.announce(action === 'confirm' ? `Installing ${item.name} in ${started.namespace}` : `Install of ${item.name} cancelled; what it created was deleted`);
        if (action === 'confirm') context.navigate('#/operators');
        else output.replaceChildren(h('p', {}, 'Cancelled: the Subscription and what was created with it were deleted.'));
      } catch (error) {
        output.append(problem(error));
        confirm.disabled = cancel.disabled = false;
      }
    };
    if (result?.ready) {
      output.replaceChildren(
        h('h3', {}, `Preview: InstallPlan ${result.plan} installs ${result.csvs.length} operator${result.csvs.length === 1 ? '' : 's'}`),
        h('p', {}, `Installs ${result.csvs.join(', ')}.`),
        stepsByOperator(result.operators),
        h('div', { class: 'actions' }, confirm, cancel),
      );
      confirm.focus();
    } else {
      output.replaceChildren(problem(result?.failed ? `Resolution failed: ${result.failed}` : `No plan yet (state ${result?.state ?? 'unknown'}).`), h('div', { class: 'actions' }, cancel));
    }
  } catch (error) {
    output.replaceChildren(problem(error));
  }
}
