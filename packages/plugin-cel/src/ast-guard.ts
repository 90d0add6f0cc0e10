import type { ASTNode } from '@marcbachmann/cel-js';
import { invalidRule, limitExceeded } from './errors.js';
import type { CelLimits } from './limits.js';

/** Method-style macros that expand into a comprehension (a loop over the receiver). */
const COMPREHENSION_MACROS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

export interface AstFacts {
  /** How many comprehension macros the rule contains. */
  readonly comprehensions: number;
  /** The deepest nesting of comprehension macros inside each other's bodies. */
  readonly comprehensionNesting: number;
  /** How many `matches()` calls the rule contains (each must run on RE2, not the library's RegExp). */
  readonly matches: number;
}

/**
 * Walks the parsed rule and rejects what would make evaluation unbounded: too many or too deeply
 * nested comprehensions (each nesting level multiplies the iterations), `cel.bind` (not in
 * upstream OLM's environment; chained binds double values). Counts `matches()` calls, which the
 * compiler moves to RE2.
 */
export function guardAst(root: ASTNode, rule: string, limits: CelLimits): AstFacts {
  let comprehensions = 0;
  let matches = 0;
  let comprehensionNesting = 0;

  const visit = (node: ASTNode, nesting: number): void => {
    switch (node.op) {
      case 'value':
      case 'id':
        return;
      case 'rcall': {
        const [name, receiver, args] = node.args;
        if (name === 'bind' && receiver.op === 'id' && receiver.args === 'cel') {
          throw invalidRule(
            `cel.bind is not supported in olm.constraint rules (upstream OLM does not enable it): ${rule}`,
            rule,
          );
        }
        if (name === 'matches' && args.length === 1) matches += 1;
        visit(receiver, nesting);
        if (COMPREHENSION_MACROS.has(name) && (args.length === 2 || (name === 'map' && args.length === 3))) {
          comprehensions += 1;
          const depth = nesting + 1;
          if (depth > comprehensionNesting) comprehensionNesting = depth;
          if (comprehensions > limits.maxComprehensions) {
            throw limitExceeded(
              'maxComprehensions',
              `cel rule uses more than ${limits.maxComprehensions} comprehensions (all, exists, exists_one, map, filter)`,
              rule,
            );
          }
          if (depth > limits.maxComprehensionNesting) {
            throw limitExceeded(
              'maxComprehensionNesting',
              `cel rule nests comprehensions (all, exists, exists_one, map, filter) ${depth} deep, more than the maximum of ${limits.maxComprehensionNesting}`,
              rule,
            );
          }
          for (const arg of args) visit(arg, depth);
          return;
        }
        for (const arg of args) visit(arg, nesting);
        return;
      }
      case 'call': {
        for (const arg of node.args[1]) visit(arg, nesting);
        return;
      }
      case '.':
      case '.?':
        visit(node.args[0], nesting);
        return;
      case 'map':
        for (const [key, value] of node.args) {
          visit(key, nesting);
          visit(value, nesting);
        }
        return;
      case '!_':
      case '-_':
        visit(node.args, nesting);
        return;
      default:
        // Lists, binary and ternary operators, indexes: their operands are AST nodes.
        for (const operand of node.args as readonly ASTNode[]) visit(operand, nesting);
    }
  };

  visit(root, 0);
  return { comprehensions, comprehensionNesting, matches };
}
