import { ConstraintErrorCodes, OlmError, type CatalogRef, type ResolutionBudget } from '@olm/core';

const invalidOptions = 'OLM_RESOLVER_INVALID_OPTIONS';

/** How much work one resolution may do before it fails with `OLM_RESOLVER_BUDGET_EXHAUSTED`. */
export interface ResolutionLimits {
  /**
   * Units of constraint evaluation: one per candidate test, plus what evaluators spend (CEL: about
   * one per expression node evaluated, a loop step costing the nodes of its body). Default
   * 50,000,000: 1-1.5 s of CEL loops on this project's loaded 2-core test machine (20-30 ns a unit).
   * Real resolutions spend far less: none of the certified catalog's packages has a constraint that
   * needs testing, the resolver's scenarios spend at most a few hundred, and a synthetic 50,000-bundle
   * catalog with 50 subscriptions 160,000.
   */
  readonly evaluationUnits: number;
  /**
   * SAT calls. The preference search makes one per choice the last model does not already settle,
   * and explaining a conflict a few dozen; default 2,000 (the hardest bench case makes ~180).
   */
  readonly solverCalls: number;
  /**
   * Conflicts (dead ends) one SAT call may meet before it gives up, for SAT backends that count them
   * (`@olm/plugin-sat-cdcl`; logic-solver's MiniSat build cannot). Default 10,000: OLM's problems
   * meet a few dozen (the hardest bench case 27), a catalog built to encode a hard combinatorial
   * problem millions; one call cannot pause, so this bounds how long it holds the event loop.
   */
  readonly solverConflicts: number;
}

export const defaultResolutionLimits: ResolutionLimits = Object.freeze({
  evaluationUnits: 50_000_000,
  solverCalls: 2_000,
  solverConflicts: 10_000,
});

/** The defaults with `overrides`; each must be a positive integer (`Number.MAX_SAFE_INTEGER` for practically none). */
export function resolveResolutionLimits(overrides: Partial<ResolutionLimits> = {}): ResolutionLimits {
  const limits: Record<string, number> = { ...defaultResolutionLimits };
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) continue;
    if (!(name in defaultResolutionLimits)) {
      throw new OlmError(invalidOptions, `unknown resolution limit ${JSON.stringify(name)}; known limits: ${Object.keys(defaultResolutionLimits).join(', ')}`);
    }
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
      throw new OlmError(invalidOptions, `resolution limit ${name} must be a positive integer, got ${String(value)}`);
    }
    limits[name] = value;
  }
  return Object.freeze({ evaluationUnits: limits['evaluationUnits']!, solverCalls: limits['solverCalls']!, solverConflicts: limits['solverConflicts']! });
}

/** A dependency being evaluated, as the budget error names it. */
export interface ChargedConstraint {
  /** The predicate text (`with constraint: "…" and message: "…"`), computed only for the error. */
  describe(): string;
  readonly failureMessages: readonly string[];
}

/** The bundle whose dependency is being evaluated. */
export interface ChargedBundle {
  readonly id: string;
  readonly name: string;
  readonly catalog: CatalogRef;
}

interface Account {
  readonly bundle: ChargedBundle;
  readonly constraint: ChargedConstraint;
  units: number;
}

const advice =
  'simplify or remove these constraints in the catalog, or raise the resolution budget (resolver option limits.evaluationUnits; ' +
  '`olm run`/`olm up --resolution-budget`) if the catalog is trusted';

/**
 * One resolution's evaluation budget, with what each bundle's dependencies spent, so that the
 * error names the bundle that cost the most (not merely the one evaluated last).
 */
export class EvaluationMeter implements ResolutionBudget {
  spent = 0;
  private readonly accounts = new Map<string, Map<ChargedConstraint, Account>>();
  private current: { units: number } = { units: 0 };
  private exhausted: OlmError | undefined;

  constructor(private readonly limit: number) {}

  get isExhausted(): boolean {
    return this.exhausted !== undefined;
  }

  /** Charges what follows to `constraint` of `bundle`, until the next call. */
  chargeTo(bundle: ChargedBundle, constraint: ChargedConstraint): void {
    let byConstraint = this.accounts.get(bundle.id);
    if (!byConstraint) {
      byConstraint = new Map();
      this.accounts.set(bundle.id, byConstraint);
    }
    let account = byConstraint.get(constraint);
    if (!account) {
      account = { bundle, constraint, units: 0 };
      byConstraint.set(constraint, account);
    }
    this.current = account;
  }

  spend(units: number): void {
    this.spent += units;
    this.current.units += units;
    if (this.spent > this.limit) throw (this.exhausted ??= this.exhaustedError());
  }

  /** The error to throw: thrown again by every later `spend`, and by the resolver if an evaluator swallowed it. */
  error(): OlmError | undefined {
    return this.exhausted;
  }

  private exhaustedError(): OlmError {
    let top: { bundle: ChargedBundle; units: number; accounts: Account[] } | undefined;
    for (const byConstraint of this.accounts.values()) {
      const accounts = [...byConstraint.values()];
      const units = accounts.reduce((sum, account) => sum + account.units, 0);
      if (!top || units > top.units) top = { bundle: accounts[0]!.bundle, units, accounts };
    }
    const head = `resolution stopped: evaluating constraints used up the budget of ${this.limit} units`;
    if (!top) return new OlmError(ConstraintErrorCodes.budgetExhausted, `${head}; ${advice}`, { details: { budget: 'evaluationUnits', limit: this.limit, spent: this.spent } });
    const costliest = top.accounts.reduce((best, account) => (account.units > best.units ? account : best));
    const constraint = abbreviate(costliest.constraint.describe(), 200);
    const messages = costliest.constraint.failureMessages.filter((message) => !constraint.includes(JSON.stringify(message)));
    const { name, catalog } = top.bundle;
    const count = top.accounts.length;
    const message =
      `${head}: bundle ${name} (catalogsource ${catalog.namespace}/${catalog.name}) spent ${top.units} of them on ` +
      `${count === 1 ? 'its constraint' : `${count} constraints, the costliest (${costliest.units} units) being the one`} ${constraint}` +
      `${messages.length > 0 ? ` (failureMessage: ${messages.join('; ')})` : ''}; ${advice}`;
    return new OlmError(ConstraintErrorCodes.budgetExhausted, message, {
      details: {
        budget: 'evaluationUnits',
        limit: this.limit,
        spent: this.spent,
        bundle: name,
        catalog,
        bundleUnits: top.units,
        constraint,
        constraintUnits: costliest.units,
        failureMessages: costliest.constraint.failureMessages,
      },
    });
  }
}

/** Keeps the start and the end of a long text (a CEL rule can be 8 KiB). */
function abbreviate(text: string, length: number): string {
  if (text.length <= length) return text;
  const half = Math.floor((length - 1) / 2);
  return `${text.slice(0, half)}…${text.slice(text.length - half)}`;
}
