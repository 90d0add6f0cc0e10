import './styles.css';
import { getJson } from './api.js';
import { h, problem } from './dom.js';
import type { Page, PageContext } from './page.js';
import { catalogsPage } from './pages/catalogs.js';
import { extensionsPage } from './pages/extensions.js';
import { operatorsPage } from './pages/operators.js';
import { packageDetailPage } from './pages/package-detail.js';
import { packagesPage } from './pages/packages.js';
import { plansPage } from './pages/plans.js';
import { whyPage } from './pages/why.js';

/** Pages by the first part of the hash (`#/plans`); the nav lists those with a label. */
const pages: Record<string, { page: Page; label?: string }> = {
  packages: { page: packagesPage, label: 'Packages' },
  package: { page: packageDetailPage },
  catalogs: { page: catalogsPage, label: 'Catalogs' },
  operators: { page: operatorsPage, label: 'Installed operators' },
  plans: { page: plansPage, label: 'Plans' },
  why: { page: whyPage },
  extensions: { page: extensionsPage, label: 'Cluster extensions' },
};

const main = document.getElementById('main')!;
const nav = document.getElementById('nav')!;
const live = document.getElementById('live')!;
const namespaceInput = document.getElementById('namespace') as HTMLInputElement;
let namespace = 'operators';
let events: EventSource | undefined;
let refreshTimer: number | undefined;
let rendering = 0;

function route(): { name: string; parts: string[] } {
  const [name = 'packages', ...parts] = location.hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  // `#/packages/NS/CATALOG/PACKAGE` is one package's page.
  if (name === 'packages' && parts.length === 3) return { name: 'package', parts };
  return { name: pages[name] ? name : 'packages', parts };
}

function announce(message: string): void {
  live.textContent = message;
}

const context = (parts: string[]): PageContext => ({ namespace, parts, navigate: (hash) => void (location.hash = hash), announce });

async function render(options: { readonly refresh?: boolean; readonly initial?: boolean } = {}): Promise<void> {
  const { name, parts } = route();
  const { page } = pages[name]!;
  const ticket = ++rendering;
  const focused = document.activeElement?.id;
  for (const link of nav.querySelectorAll('a')) link.toggleAttribute('aria-current', link.dataset.page === (name === 'package' ? 'packages' : name === 'why' ? 'operators' : name));
  let node: Node;
  try {
    node = await page.render(context(parts));
  } catch (error) {
    node = h('section', {}, h('h1', { id: 'page-title' }, page.title), problem(error));
  }
  if (ticket !== rendering) return;
  main.replaceChildren(node);
  document.title = `${page.title} · OLM console`;
  // A refresh keeps the keyboard where it was; a new page moves it to the page's heading; the first
  // page leaves it at the start of the document (the skip link comes first).
  if (options.initial) return;
  const target = options.refresh && focused ? document.getElementById(focused) : document.getElementById('page-title');
  if (target && !options.refresh) target.setAttribute('tabindex', '-1');
  target?.focus();
}

/** Live updates: the server relays the cluster's watches; a change re-renders a live page (once per burst). */
function listen(): void {
  events?.close();
  events = new EventSource(`/api/events?namespace=${encodeURIComponent(namespace)}`);
  events.addEventListener('open', () => announce('Live updates on'));
  events.addEventListener('error', () => announce('Live updates interrupted; reconnecting…'));
  events.addEventListener('problem', (event) => announce(JSON.parse((event as MessageEvent).data).message));
  events.addEventListener('change', () => {
    window.clearTimeout(refreshTimer);
    refreshTimer = window.setTimeout(() => {
      if (pages[route().name]!.page.live) void render({ refresh: true });
    }, 500);
  });
}

async function start(): Promise<void> {
  nav.replaceChildren(
    h('ul', {}, ...Object.entries(pages).flatMap(([name, entry]) => (entry.label ? [h('li', {}, h('a', { href: `#/${name}`, 'data-page': name }, entry.label))] : []))),
  );
  try {
    const session = await getJson('/api/session');
    namespace = sessionStorage.getItem('olm-console-namespace') ?? session.defaultNamespace;
    document.querySelector('.brand')!.textContent = `OLM console · ${session.context || session.server}`;
  } catch (error) {
    main.replaceChildren(problem(error));
    return;
  }
  namespaceInput.value = namespace;
  namespaceInput.addEventListener('change', () => {
    namespace = namespaceInput.value.trim() || namespace;
    sessionStorage.setItem('olm-console-namespace', namespace);
    listen();
    void render();
  });
  window.addEventListener('hashchange', () => void render());
  listen();
  await render({ initial: true });
}

void start();
