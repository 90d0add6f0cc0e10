import { goQuote } from '@olm/go-format';
import type { PropertyRuleName } from './property-rules.js';

/** The rules of crdify that OLM v1 enforces, by upstream's names. */
export type CrdSchemaRuleName = 'scope' | 'storedVersionRemoval' | 'existingFieldRemoval' | PropertyRuleName;

export interface CrdSchemaViolation {
  /** The CRD's name (`widgets.example.com`). */
  readonly crd: string;
  /** The version compared (`v1`), or the served-version pair (`v1 -> v2`); absent for `scope` and `storedVersionRemoval`. */
  readonly version?: string;
  /** The field in upstream's form (`^.spec.size`, `^.spec.items.items`, `^.spec.labels.additionalProperties`). */
  readonly field?: string;
  readonly rule: CrdSchemaRuleName;
  /** Upstream's error text for the rule, e.g. `maximum decreased : 10 -> 5`. */
  readonly detail: string;
  /** The whole violation in one line, as upstream writes it: `validating upgrade for CRD "…": v1: ^.spec.size: maximum: maximum decreased : 10 -> 5`. */
  readonly message: string;
}

export interface CrdSchemaUpgradeCheck {
  /** The violations found, in schema order, while their messages fit `maxReportCharacters`. */
  readonly violations: readonly CrdSchemaViolation[];
  /** Further violations found but not kept (a message would have passed `maxReportCharacters`). */
  readonly omittedViolations: number;
}

/** Upstream's line for one violation, without the CRD prefix. */
export function violationLine(violation: Pick<CrdSchemaViolation, 'version' | 'field' | 'rule' | 'detail'>): string {
  if (violation.field === undefined || violation.rule === 'existingFieldRemoval') return `${violation.rule}: ${violation.detail}`;
  return `${violation.version}: ${violation.field}: ${violation.rule}: ${violation.detail}`;
}

const crdPrefix = (crd: string) => `validating upgrade for CRD ${goQuote(crd)}: `;

/** Where a violation goes in the report: upstream lists CRD-wide ones, then same-version, then served-version ones. */
export type ReportSection = 'crd' | 'version' | 'served';

/** Collects violations while their messages fit the character budget; builds no message once it is spent. */
export class ViolationReport {
  private readonly kept: Record<ReportSection, CrdSchemaViolation[]> = { crd: [], version: [], served: [] };
  private characters = 0;
  private omitted = 0;

  constructor(
    private readonly crd: string,
    private readonly maxCharacters: number,
  ) {}

  add(section: ReportSection, rule: CrdSchemaRuleName, detail: string, location: { version?: string; field?: () => string } = {}): void {
    if (this.characters >= this.maxCharacters) {
      this.omitted += 1;
      return;
    }
    const violation = { crd: this.crd, version: location.version, field: location.field?.(), rule, detail };
    const message = crdPrefix(this.crd) + violationLine(violation);
    this.characters += message.length;
    // The first violation is always kept, cut to the budget, so a report never says only "N more".
    if (this.characters > this.maxCharacters && this.characters > message.length) {
      this.omitted += 1;
      return;
    }
    const shown = message.length > this.maxCharacters ? `${message.slice(0, this.maxCharacters)}…` : message;
    this.kept[section].push(withoutUndefined({ ...violation, message: shown }));
  }

  result(): CrdSchemaUpgradeCheck {
    return { violations: [...this.kept.crd, ...this.kept.version, ...this.kept.served], omittedViolations: this.omitted };
  }
}

function withoutUndefined(violation: CrdSchemaViolation): CrdSchemaViolation {
  return Object.fromEntries(Object.entries(violation).filter(([, value]) => value !== undefined)) as unknown as CrdSchemaViolation;
}

/**
 * The message a ClusterExtension's `Progressing`/`Installed` condition shows when Strict enforcement
 * blocks the upgrade: upstream's text (`validating upgrade for CRD "…": <violation>` with one line per
 * violation, CRDs one after the other), or `undefined` when nothing blocks. Omitted violations are counted
 * on a last line (upstream has no such limit).
 */
export function formatCrdSchemaViolations(checks: CrdSchemaUpgradeCheck | readonly CrdSchemaUpgradeCheck[]): string | undefined {
  const parts: string[] = [];
  for (const check of Array.isArray(checks) ? (checks as readonly CrdSchemaUpgradeCheck[]) : [checks as CrdSchemaUpgradeCheck]) {
    const [first] = check.violations;
    if (!first) continue;
    const lines = check.violations.map((violation) => violation.message.slice(crdPrefix(violation.crd).length));
    if (check.omittedViolations > 0) lines.push(`… and ${check.omittedViolations} more violation${check.omittedViolations === 1 ? '' : 's'} not shown`);
    parts.push(crdPrefix(first.crd) + lines.join('\n'));
  }
  return parts.length > 0 ? parts.join('\n') : undefined;
}
