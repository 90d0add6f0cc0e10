import { goJson, goList, goQuote } from '@olm/go-format';
import type { JSONSchemaProps } from '@olm/structural-schema';
import type { CrdVersion, CrdView } from './crd-view.js';
import { jsonNodeCount } from './go-values.js';
import { byKubeVersionPriority } from './kube-version-order.js';
import { CrdUpgradeSafetyError, CrdUpgradeSafetyErrorCodes, SchemaDiffBudget, type SchemaDiffLimits } from './limits.js';
import { comparePropertyRules, type RawJson } from './property-rules.js';
import { walkSchemaPair } from './schema-pair-walk.js';
import { ViolationReport, type CrdSchemaRuleName, type CrdSchemaUpgradeCheck } from './violations.js';

export interface CrdSchemaUpgradeOptions {
  /** Limits for this check alone (defaults: `defaultSchemaDiffLimits`); ignored when `budget` is given. */
  readonly limits?: Partial<SchemaDiffLimits>;
  /** One budget for the checks of every CRD of a bundle, so the limits hold for the bundle. */
  readonly budget?: SchemaDiffBudget;
}

const schemaOf = (version: CrdVersion): JSONSchemaProps | undefined => version.schema?.openAPIV3Schema;

/**
 * OLM v1's CRD upgrade safety (operator-controller's preflight on crdify): what in the new CRD could
 * break clients or stored objects of the old one. CRD-wide rules (`scope`, `storedVersionRemoval`,
 * `existingFieldRemoval`), then the property rules between each version and its old self, then between
 * served versions of the new CRD (unless it converts through a webhook). Throws `CrdUpgradeSafetyError`
 * (`OLM_CRD_SCHEMA_TOO_LARGE`) when the schemas pass the limits.
 */
export function checkCrdSchemaUpgrade(oldCrd: CrdView, newCrd: CrdView, options: CrdSchemaUpgradeOptions = {}): CrdSchemaUpgradeCheck {
  const budget = options.budget ?? new SchemaDiffBudget(options.limits);
  const name = newCrd.metadata.name;
  const report = new ViolationReport(name, budget.limits.maxReportCharacters);
  const oldScope = String(oldCrd.spec.scope ?? '');
  const newScope = String(newCrd.spec.scope ?? '');
  if (oldScope !== newScope) report.add('crd', 'scope', `scope changed from ${goQuote(oldScope)} to ${goQuote(newScope)}`);
  const newVersionNames = new Set(newCrd.spec.versions.map((version) => version.name));
  const removedStored = (oldCrd.status?.storedVersions ?? []).filter((version) => !newVersionNames.has(version));
  if (removedStored.length > 0) report.add('crd', 'storedVersionRemoval', `stored versions ${goList(removedStored)} removed`);
  const oldVersions = new Map(oldCrd.spec.versions.map((version) => [version.name, version]));
  for (const newVersion of newCrd.spec.versions) {
    const oldVersion = oldVersions.get(newVersion.name);
    if (oldVersion) compareSameVersion(name, oldVersion, newVersion, report, budget);
  }
  compareServedVersions(oldCrd, newCrd, report, budget);
  return report.result();
}

function compareSameVersion(crd: string, oldVersion: CrdVersion, newVersion: CrdVersion, report: ViolationReport, budget: SchemaDiffBudget): void {
  const where = `CRD ${goQuote(crd)} version ${newVersion.name}`;
  const version = newVersion.name;
  const raw = budgetedRawJson(budget, where);
  walkSchemaPair(
    schemaOf(oldVersion),
    schemaOf(newVersion),
    {
      removed: (path) => {
        report.add('crd', 'existingFieldRemoval', `crd/${crd} version/${version} field/${path.toString()} may not be removed`, {
          version,
          field: () => path.toString(),
        });
      },
      compare: (path, oldNode, newNode) => {
        for (const finding of comparePropertyRules(oldNode, newNode, raw)) report.add('version', finding.rule, finding.detail, { version, field: () => path.toString() });
      },
    },
    budget,
    where,
  );
}

/**
 * Every served version of the new CRD against each later one (by Kubernetes version priority): a
 * client may read an object in either, so a field may not tighten between them. Skipped with a
 * conversion webhook (it may translate), and problems the old CRD already had are not reported again.
 */
function compareServedVersions(oldCrd: CrdView, newCrd: CrdView, report: ViolationReport, budget: SchemaDiffBudget): void {
  if (newCrd.spec.conversion?.strategy === 'Webhook') return;
  const known = new Set<string>();
  // The old CRD's problems only suppress: at most one report's worth is remembered, the rest reported again (fails closed).
  const remembered = new ViolationReport(oldCrd.metadata.name, budget.limits.maxReportCharacters);
  servedVersionFindings(oldCrd, budget, (rule, detail, version, field) => remembered.add('served', rule, detail, { version, field }));
  for (const violation of remembered.result().violations) known.add(`${violation.version}\u0000${violation.field}\u0000${violation.rule}\u0000${violation.detail}`);
  servedVersionFindings(newCrd, budget, (rule, detail, version, field) => {
    if (known.size > 0 && known.has(`${version}\u0000${field()}\u0000${rule}\u0000${detail}`)) return;
    report.add('served', rule, detail, { version, field });
  });
}

type FindingSink = (rule: CrdSchemaRuleName, detail: string, version: string, field: () => string) => void;

function servedVersionFindings(crd: CrdView, budget: SchemaDiffBudget, sink: FindingSink): void {
  const served = crd.spec.versions.filter((version) => version.served).sort((a, b) => byKubeVersionPriority(a.name, b.name));
  for (const [index, older] of served.entries()) {
    for (const newer of served.slice(index + 1)) {
      const pair = `${older.name} -> ${newer.name}`;
      const where = `CRD ${goQuote(crd.metadata.name)} versions ${pair}`;
      const raw = budgetedRawJson(budget, where);
      walkSchemaPair(
        schemaOf(older),
        schemaOf(newer),
        {
          removed: () => undefined,
          compare: (path, oldNode, newNode) => {
            for (const finding of comparePropertyRules(oldNode, newNode, raw)) sink(finding.rule, finding.detail, pair, () => path.toString());
          },
        },
        budget,
        where,
      );
    }
  }
}

/** Enum values and defaults are JSON of any shape: their nodes count against the budget, and deep ones are refused. */
function budgetedRawJson(budget: SchemaDiffBudget, where: string): RawJson {
  return (value) => {
    const nodes = jsonNodeCount(value, budget.limits.maxNodes, budget.limits.maxDepth);
    if (nodes === undefined) {
      throw new CrdUpgradeSafetyError(
        CrdUpgradeSafetyErrorCodes.schemaTooLarge,
        `${where}: an enum value or default is larger than ${budget.limits.maxNodes} JSON nodes or nested deeper than ${budget.limits.maxDepth} levels ` +
          `(limits maxNodes, maxDepth; raise them with the limits option of checkCrdSchemaUpgrade)`,
      );
    }
    budget.spend(nodes, () => where);
    // Upstream compares `apiextensionsv1.JSON.Raw` of CRDs read through the API: Go's encoding, keys sorted.
    return goJson(value);
  };
}
