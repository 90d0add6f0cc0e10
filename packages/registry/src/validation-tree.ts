/**
 * Upstream's nested validation error (`alpha/model/error.go`): a message with sub-errors,
 * rendered as a tree (`invalid index:` / `├── ` / `└── `). A node without sub-errors prints just
 * its message; a node with sub-errors ends with `:`.
 */
export interface ValidationNode {
  readonly message: string;
  readonly children: readonly (ValidationNode | string)[];
}

function renderChildren(children: readonly (ValidationNode | string)[], prefix: string, lines: string[], seen: Set<ValidationNode>): void {
  children.forEach((child, index) => {
    const isLast = index === children.length - 1;
    const branch = isLast ? '└── ' : '├── ';
    const continuation = isLast ? '    ' : '│   ';
    if (typeof child === 'string') {
      lines.push(`${prefix}${branch}${child}`);
      return;
    }
    if (seen.has(child)) return; // upstream skips a node it is already inside
    const hasChildren = child.children.length > 0;
    lines.push(`${prefix}${branch}${child.message}${hasChildren ? ':' : ''}`);
    seen.add(child);
    renderChildren(child.children, prefix + continuation, lines, seen);
    seen.delete(child);
  });
}

export function renderValidationTree(node: ValidationNode): string {
  if (node.message === '' && node.children.length === 0) return '';
  const lines = [node.children.length > 0 ? `${node.message}:` : node.message];
  renderChildren(node.children, '', lines, new Set([node]));
  return lines.join('\n');
}
