import type { JSONSchemaProps } from '@olm/structural-schema';
import type { SchemaDiffBudget } from './limits.js';
import { SchemaPath } from './schema-path.js';

export interface SchemaPairVisitor {
  /** Every node of the old schema with its counterpart in the new one (`{}` where the new one has none). */
  compare(path: SchemaPath, oldNode: JSONSchemaProps, newNode: JSONSchemaProps): void;
  /** A node of the old schema that the new one lacks (its descendants are reported too). */
  removed(path: SchemaPath): void;
}

const empty: JSONSchemaProps = Object.freeze({});

/** A schema node, or `{}` for anything that is not one (CRDs are untrusted: a property may be `5`). */
export function asSchema(value: unknown): JSONSchemaProps {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JSONSchemaProps) : empty;
}

interface Child {
  readonly path: SchemaPath;
  readonly oldNode: unknown;
  readonly newNode: unknown;
}

/**
 * The sub-schemas crdify walks, paired by position: `items`, `allOf`/`anyOf`/`oneOf` entries, `not`,
 * `properties`, a schema-valued `additionalProperties`. (A v1 CRD may not use `patternProperties`,
 * `additionalItems`, `definitions` or `dependencies`.)
 */
function children(path: SchemaPath, oldNode: JSONSchemaProps, newNode: JSONSchemaProps | undefined): Child[] {
  const pairs: Child[] = [];
  if (oldNode.items !== undefined) pairs.push({ path: path.child('items'), oldNode: oldNode.items, newNode: newNode?.items });
  for (const keyword of ['allOf', 'anyOf', 'oneOf'] as const) {
    const oldList = oldNode[keyword];
    if (!Array.isArray(oldList)) continue;
    const newList = Array.isArray(newNode?.[keyword]) ? newNode[keyword] : [];
    oldList.forEach((entry, index) => pairs.push({ path: path.indexed(keyword, index), oldNode: entry, newNode: newList[index] }));
  }
  if (oldNode.not !== undefined) pairs.push({ path: path.child('not'), oldNode: oldNode.not, newNode: newNode?.not });
  const oldProperties = asSchemaMap(oldNode.properties);
  const newProperties = asSchemaMap(newNode?.properties);
  for (const name of Object.keys(oldProperties)) {
    pairs.push({ path: path.child(name), oldNode: oldProperties[name], newNode: Object.hasOwn(newProperties, name) ? newProperties[name] : undefined });
  }
  if (typeof oldNode.additionalProperties === 'object' && oldNode.additionalProperties !== null) {
    const newAdditional = newNode?.additionalProperties;
    pairs.push({ path: path.child('additionalProperties'), oldNode: oldNode.additionalProperties, newNode: typeof newAdditional === 'object' ? newAdditional : undefined });
  }
  return pairs;
}

function asSchemaMap(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * Walks the old schema and the new one side by side, depth first, within the budget. `where` names
 * the CRD and version for a limit error.
 */
export function walkSchemaPair(
  oldSchema: unknown,
  newSchema: unknown,
  visitor: SchemaPairVisitor,
  budget: SchemaDiffBudget,
  where: string,
): void {
  const stack: { child: Child; depth: number }[] = [{ child: { path: SchemaPath.root, oldNode: oldSchema, newNode: newSchema }, depth: 0 }];
  while (stack.length > 0) {
    const { child, depth } = stack.pop()!;
    const describe = () => `${where}, field ${truncated(child.path.toString())}`;
    budget.checkDepth(depth, describe);
    budget.spend(1, describe);
    const oldNode = asSchema(child.oldNode);
    const newNode = child.newNode === undefined ? undefined : asSchema(child.newNode);
    if (newNode === undefined) visitor.removed(child.path);
    visitor.compare(child.path, oldNode, newNode ?? empty);
    // Reversed, so the stack pops children in schema order.
    const next = children(child.path, oldNode, newNode);
    for (let index = next.length - 1; index >= 0; index -= 1) stack.push({ child: next[index]!, depth: depth + 1 });
  }
}

const shownPathCharacters = 200;

function truncated(path: string): string {
  return path.length <= shownPathCharacters ? path : `${path.slice(0, shownPathCharacters)}…`;
}
