import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Annotations, Labels } from './annotations.js';
import { CatalogSourceReasons, SourceTypes } from './catalog-source.js';
import { GrpcConnectionStates } from './catalog-source.js';
import {
  CSVCleanupFinalizer,
  CSVObsoleteReasons,
  CSVPhases,
  CSVReasons,
  CSVUncopiableReasons,
  DependentStatusReasons,
  InstallModeTypes,
  RequirementStatusReasons,
  StrategyErrorReasons,
} from './cluster-service-version.js';
import { Approvals, BundleLookupConditionTypes, InstallPlanConditionTypes, InstallPlanPhases, InstallPlanReasons, StepStatuses } from './install-plan.js';
import { OLMConfigConditionTypes } from './olm-config.js';
import { OperatorGroupConditionTypes, OperatorGroupReasons, UpgradeStrategies } from './operator-group.js';
import { SubscriptionConditionTypes, SubscriptionReasons, SubscriptionStates } from './subscription.js';

// The constants must be verbatim from the behaviour reference: read the names straight out of it.
const reference = readFileSync(new URL('../../../../shared/reference/olm-v0-behaviour.md', import.meta.url), 'utf8');

function backticked(headingOrPrefix: RegExp): string[] {
  const match = reference.match(headingOrPrefix);
  if (!match) throw new Error(`reference section ${headingOrPrefix} not found`);
  return [...(match[0].matchAll(/`([^`]*)`/g) as Iterable<RegExpMatchArray>)].map((m) => (m[1] ?? '').replace(/^"(.*)"$/, '$1').replace(/=""$/, ''));
}

const values = (set: Record<string, string>) => [...new Set(Object.values(set))].sort();

describe('constants match the upstream names in the behaviour reference', () => {
  it('CSV phases', () => {
    const names = backticked(/### 1\.1 Phases[^\n]*\n[^\n]+/).filter((name) => !name.includes('/') && !name.includes('('));
    expect(names).toEqual(expect.arrayContaining(['Pending', 'InstallReady', 'Installing', 'Succeeded', 'Failed', 'Unknown', 'Replacing', 'Deleting']));
    for (const name of names.filter((n) => /^[A-Z][A-Za-z]+$/.test(n) && !['None', 'Any'].includes(n))) expect(Object.values(CSVPhases)).toContain(name);
    expect(CSVPhases.None).toBe('');
    expect(CSVPhases.Any).toBe('');
  });

  it('CSV reasons, requirement and dependent statuses', () => {
    const [reasonsLine = '', statusLine = ''] = (reference.match(/### 1\.2 Reason constants[^\n]*\n([^\n]+)\n([^\n]+)/)?.slice(1) ?? []) as string[];
    const reasons = [...reasonsLine.matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1]).filter((name) => name !== 'CSVReasonRequirementsMet');
    expect(values(CSVReasons)).toEqual([...new Set(reasons)].sort());
    const statuses = [...statusLine.matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1]).filter((name) => !['DeploymentFound', 'DeploymentNotFound'].includes(name ?? ''));
    expect([...values(RequirementStatusReasons), ...values(DependentStatusReasons)].sort()).toEqual([...statuses].sort());
  });

  it('uncopiable reasons', () => {
    const line = reference.match(/uncopiable \(`IsUncopiable`\):[^\n]+/)?.[0] ?? '';
    const listed = line.slice(line.indexOf('{') + 1, line.indexOf('}')).split(',').map((name) => name.trim());
    expect([...CSVUncopiableReasons].sort()).toEqual(listed.sort());
  });

  it('InstallPlan phases, reasons and step statuses', () => {
    const section = reference.match(/## 4\. InstallPlan[^\n]*\n[^\n]+/)?.[0] ?? '';
    for (const phase of ['Planning', 'RequiresApproval', 'Installing', 'Complete', 'Failed']) {
      expect(section).toContain(`\`${phase}\``);
      expect(Object.values(InstallPlanPhases)).toContain(phase);
    }
    for (const reason of Object.values(InstallPlanReasons)) expect(section).toContain(`\`${reason}\``);
    for (const status of Object.values(StepStatuses)) expect(section).toContain(`\`${status}\``);
  });

  it('Subscription states and condition types', () => {
    const section = reference.match(/## 3\. Subscription[\s\S]*?\n---/)?.[0] ?? '';
    for (const state of Object.values(SubscriptionStates).filter(Boolean)) expect(section).toContain(`\`${state}\``);
    for (const type of Object.values(SubscriptionConditionTypes)) expect(section).toContain(`\`${type}\``);
  });

  it('CatalogSource source types and reasons, OperatorGroup reasons, install modes', () => {
    const catalog = reference.match(/## 5\. CatalogSource[^\n]*\n[^\n]+/)?.[0] ?? '';
    for (const type of Object.values(SourceTypes)) expect(catalog).toContain(`\`${type}\``);
    for (const reason of Object.values(CatalogSourceReasons)) expect(catalog).toContain(`\`${reason}\``);
    for (const reason of Object.values(OperatorGroupReasons)) expect(reference).toContain(`\`${reason}\``);
    expect(reference).toContain(`Types \`${Object.values(InstallModeTypes).join('|')}\``);
  });

  it('strategy error reasons, obsolete reasons and the CSV finalizer', () => {
    const errorReasons = reference.match(/Error reasons: ([^\n]+)/)?.[1] ?? '';
    expect(values(StrategyErrorReasons)).toEqual(errorReasons.replace(/\.$/, '').split(', ').sort());
    const obsolete = backticked(/obsolete \(`IsObsolete`\):[^\n]+/).filter((name) => name !== 'IsObsolete');
    expect([...CSVObsoleteReasons].sort()).toEqual(obsolete.sort());
    expect(reference).toContain(`Finalizer \`${CSVCleanupFinalizer}\``);
  });

  it('Subscription reasons named in the reference, and approvals', () => {
    const section = reference.match(/## 3\. Subscription[\s\S]*?\n---/)?.[0] ?? '';
    // InvalidCatalog and UpgradeSucceeded are declared upstream but not described there; Deprecated is the deprecation conditions' reason.
    const described = Object.values(SubscriptionReasons).filter((reason) => !['InvalidCatalog', 'UpgradeSucceeded', 'Deprecated'].includes(reason));
    const named = new Set([...section.matchAll(/`([^`]+)`/g)].flatMap((match) => (match[1] ?? '').split('|')));
    for (const reason of described) expect(named.has(reason), reason).toBe(true);
    expect(section).toContain(`\`${Object.values(Approvals).join('|')}\``);
  });

  it('InstallPlan, bundle lookup, OperatorGroup and OLMConfig condition types, and upgrade strategies', () => {
    const installPlan = reference.match(/## 4\. InstallPlan[\s\S]*?\n---/)?.[0] ?? '';
    for (const type of [...Object.values(InstallPlanConditionTypes), ...Object.values(BundleLookupConditionTypes)]) expect(installPlan, type).toContain(`\`${type}\``);
    for (const type of Object.values(OperatorGroupConditionTypes)) expect(reference, type).toContain(`condition \`${type}\``);
    for (const type of Object.values(OLMConfigConditionTypes)) expect(reference, type).toContain(`condition \`${type}\``);
    for (const strategy of Object.values(UpgradeStrategies).filter((name) => name !== 'Default')) expect(reference).toContain(`\`upgradeStrategy: ${strategy}\``);
  });

  it('gRPC connection states', () => {
    const catalog = reference.match(/## 5\. CatalogSource[^\n]*\n[^\n]+/)?.[0] ?? '';
    expect(catalog).toContain(`gRPC: ${Object.values(GrpcConnectionStates).join('|')}`);
  });

  it('annotation and label keys', () => {
    for (const key of [Annotations.operatorGroup, Annotations.operatorNamespace, Annotations.targetNamespaces, Annotations.providedAPIs, Annotations.excludeGlobalNamespaceResolution, Annotations.properties, Annotations.generatedBy]) {
      expect(reference).toContain(`\`${key}`);
    }
    for (const key of [Labels.managed, Labels.owner, Labels.ownerNamespace, Labels.ownerKind, Labels.copiedFrom, Labels.deploymentSpecHash, Labels.permissionsHash]) {
      expect(reference).toContain(key);
    }
  });
});
