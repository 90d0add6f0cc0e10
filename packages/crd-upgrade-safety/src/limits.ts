/** Stable codes of the errors this package throws (`OLM_<AREA>_<WHAT>`). */
export const CrdUpgradeSafetyErrorCodes = {
  /** A CRD's schemas are too deep or too big to compare within the limits. */
  schemaTooLarge: 'OLM_CRD_SCHEMA_TOO_LARGE',
} as const;

export type CrdUpgradeSafetyErrorCode = (typeof CrdUpgradeSafetyErrorCodes)[keyof typeof CrdUpgradeSafetyErrorCodes];

/**
 * Thrown when the schema comparison would exceed its limits; recognised by `code` (works with
 * `hasErrorCode` from `@olm/core`; this package does not depend on the kernel).
 */
export class CrdUpgradeSafetyError extends Error {
  readonly code: CrdUpgradeSafetyErrorCode;

  constructor(code: CrdUpgradeSafetyErrorCode, message: string) {
    super(message);
    this.name = 'CrdUpgradeSafetyError';
    this.code = code;
  }
}

/**
 * Bounds of the schema comparison. CRDs come from bundles, so their schemas are untrusted: without
 * bounds a deep schema overflows the stack and a wide one (or many versions compared pairwise) takes
 * unbounded time.
 */
export interface SchemaDiffLimits {
  /** Deepest schema nesting compared (properties, items, allOf…): real CRDs stay under 40. */
  readonly maxDepth: number;
  /**
   * Schema nodes (and enum/default JSON values) visited in total, across every version and version pair
   * of the CRDs checked with one budget: the largest public CRDs have tens of thousands.
   */
  readonly maxNodes: number;
  /** Characters of violation messages kept: a condition message holds 32768; further violations are only counted. */
  readonly maxReportCharacters: number;
}

export const defaultSchemaDiffLimits: SchemaDiffLimits = { maxDepth: 64, maxNodes: 1_000_000, maxReportCharacters: 32_768 };

/**
 * What one or more checks may still spend. Pass the same budget to the checks of every CRD of one
 * bundle so the limits hold for the bundle, not only per CRD.
 */
export class SchemaDiffBudget {
  readonly limits: SchemaDiffLimits;
  private nodes = 0;

  constructor(limits: Partial<SchemaDiffLimits> = {}) {
    this.limits = { ...defaultSchemaDiffLimits, ...limits };
  }

  /** Counts visited nodes; throws once `maxNodes` is passed, naming the CRD and version being compared. */
  spend(count: number, where: () => string): void {
    this.nodes += count;
    if (this.nodes > this.limits.maxNodes) {
      throw new CrdUpgradeSafetyError(
        CrdUpgradeSafetyErrorCodes.schemaTooLarge,
        `${where()}: schemas too large to check upgrade safety: more than ${this.limits.maxNodes} schema nodes compared ` +
          `(limit maxNodes; raise it with the limits.maxNodes option of checkCrdSchemaUpgrade)`,
      );
    }
  }

  /** Throws when a schema nests deeper than `maxDepth`. */
  checkDepth(depth: number, where: () => string): void {
    if (depth <= this.limits.maxDepth) return;
    throw new CrdUpgradeSafetyError(
      CrdUpgradeSafetyErrorCodes.schemaTooLarge,
      `${where()}: schema nested deeper than ${this.limits.maxDepth} levels, too deep to check upgrade safety ` +
        `(limit maxDepth; raise it with the limits.maxDepth option of checkCrdSchemaUpgrade)`,
    );
  }
}
