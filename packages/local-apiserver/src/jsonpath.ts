import { isJsonObject } from './kube-object.js';

/**
 * The subset of kubectl JSONPath used by `additionalPrinterColumns`: `.a.b`, `['a.b']`, `[0]`, `[*]`,
 * `..` is not supported, and filters `[?(@.type=="Ready")]` (==, !=). Returns every match.
 */
type Step =
  | { readonly kind: 'field'; readonly name: string }
  | { readonly kind: 'index'; readonly index: number }
  | { readonly kind: 'wildcard' }
  | { readonly kind: 'filter'; readonly path: readonly Step[]; readonly operator: '==' | '!=' | 'exists'; readonly value?: unknown };

export function parseJsonPath(expression: string): Step[] {
  let text = expression.trim();
  if (text.startsWith('{') && text.endsWith('}')) text = text.slice(1, -1).trim();
  if (text.startsWith('$')) text = text.slice(1);
  if (text.startsWith('@')) text = text.slice(1);
  const steps: Step[] = [];
  let index = 0;
  while (index < text.length) {
    const ch = text[index];
    if (ch === '.') {
      index++;
      const match = /^[^.[\]]+/.exec(text.slice(index));
      if (!match) continue;
      steps.push(match[0] === '*' ? { kind: 'wildcard' } : { kind: 'field', name: match[0] });
      index += match[0].length;
    } else if (ch === '[') {
      const end = findClosingBracket(text, index);
      const inner = text.slice(index + 1, end).trim();
      index = end + 1;
      if (inner === '*') steps.push({ kind: 'wildcard' });
      else if (/^-?\d+$/.test(inner)) steps.push({ kind: 'index', index: Number(inner) });
      else if (/^'.*'$|^".*"$/.test(inner)) steps.push({ kind: 'field', name: inner.slice(1, -1) });
      else if (inner.startsWith('?(') && inner.endsWith(')')) steps.push(parseFilter(inner.slice(2, -1)));
      else throw new Error(`unsupported JSONPath segment [${inner}]`);
    } else {
      const match = /^[^.[\]]+/.exec(text.slice(index));
      if (!match) throw new Error(`unexpected character in JSONPath ${expression}`);
      steps.push({ kind: 'field', name: match[0] });
      index += match[0].length;
    }
  }
  return steps;
}

function findClosingBracket(text: string, start: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let index = start; index < text.length; index++) {
    const ch = text[index];
    if (quote) {
      if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '[') depth++;
    else if (ch === ']' && --depth === 0) return index;
  }
  throw new Error(`unterminated [ in JSONPath ${text}`);
}

function parseFilter(text: string): Step {
  const match = /^@(.*?)\s*(==|!=)\s*(.+)$/.exec(text.trim());
  if (!match) return { kind: 'filter', path: parseJsonPath(text.trim().replace(/^@/, '')), operator: 'exists' };
  const raw = (match[3] ?? '').trim();
  let value: unknown = raw;
  if (/^".*"$|^'.*'$/.test(raw)) value = raw.slice(1, -1);
  else if (raw === 'true' || raw === 'false') value = raw === 'true';
  else if (!Number.isNaN(Number(raw))) value = Number(raw);
  return { kind: 'filter', path: parseJsonPath(match[1] ?? ''), operator: match[2] === '!=' ? '!=' : '==', value };
}

function apply(steps: readonly Step[], roots: unknown[]): unknown[] {
  let current = roots;
  for (const step of steps) {
    const next: unknown[] = [];
    for (const value of current) {
      if (step.kind === 'field') {
        if (isJsonObject(value) && value[step.name] !== undefined) next.push(value[step.name]);
      } else if (step.kind === 'index') {
        if (Array.isArray(value)) {
          const item = value[step.index < 0 ? value.length + step.index : step.index];
          if (item !== undefined) next.push(item);
        }
      } else if (step.kind === 'wildcard') {
        if (Array.isArray(value)) next.push(...value);
        else if (isJsonObject(value)) next.push(...Object.values(value));
      } else if (Array.isArray(value)) {
        for (const item of value) {
          const found = apply(step.path, [item]);
          if (step.operator === 'exists' ? found.length > 0 : step.operator === '==' ? found.some((f) => f === step.value) : found.every((f) => f !== step.value)) {
            next.push(item);
          }
        }
      }
    }
    current = next;
  }
  return current;
}

export function evaluateJsonPath(expression: string, object: unknown): unknown[] {
  return apply(parseJsonPath(expression), [object]);
}
