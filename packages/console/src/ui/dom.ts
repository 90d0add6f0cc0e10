/** Small DOM helpers: the page is plain DOM, no framework (the whole bundle stays a few KB). */

type Child = Node | string | number | false | null | undefined;
type Attributes = Record<string, string | number | boolean | EventListener | undefined>;

/** `h('button', { type: 'button', onclick }, 'Approve')`: attributes, `on*` listeners, children (falsy ones skipped). */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** A table with a caption and column headers (scope=col), one row per item. */
export function table(caption: string, headers: readonly string[], rows: ReadonlyArray<readonly Child[]>): HTMLTableElement {
  return h(
    'table',
    {},
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, ...headers.map((header) => h('th', { scope: 'col' }, header)))),
    h('tbody', {}, ...rows.map((cells) => h('tr', {}, ...cells.map((cell) => h('td', {}, cell))))),
  );
}

/** A condition as a short badge: `Type=Status (Reason)` with the message as its text for screen readers too. */
export function conditionList(conditions: ReadonlyArray<{ type: string; status: string; reason?: string; message?: string }>): Node {
  if (conditions.length === 0) return h('span', { class: 'muted' }, 'none');
  return h(
    'ul',
    { class: 'conditions' },
    ...conditions.map((condition) =>
      h('li', { class: `condition status-${condition.status.toLowerCase()}` }, `${condition.type}=${condition.status}${condition.reason ? ` (${condition.reason})` : ''}`, condition.message ? h('span', { class: 'message' }, `: ${condition.message}`) : null),
    ),
  );
}

/** An error the page shows where it happened, announced to screen readers. */
export function problem(error: unknown): HTMLElement {
  return h('p', { class: 'problem', role: 'alert' }, error instanceof Error ? error.message : String(error));
}
