import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Annotations, Labels } from './annotations.js';
import { CatalogSourceReasons, SourceTypes } from './catalog-source.js';
import { CSVPhases, CSVReasons, CSVUncopiableReasons, DependentStatusReasons, InstallModeTypes, RequirementStatusReasons } from './cluster-service-version.js';
import { InstallPlanPhases, InstallPlanReasons, StepStatuses } from './install-plan.js';
import { OperatorGroupReasons } from './operator-group.js';
import { SubscriptionConditionTypes, SubscriptionStates } from './subscription.js';

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

  it('annotation and label keys', () => {
    for (const key of [Annotations.operatorGroup, Annotations.operatorNamespace, Annotations.targetNamespaces, Annotations.providedAPIs, Annotations.excludeGlobalNamespaceResolution, Annotations.properties, Annotations.generatedBy]) {
      expect(reference).toContain(`\`${key}`);
    }
    for (const key of [Labels.managed, Labels.owner, Labels.ownerNamespace, Labels.ownerKind, Labels.copiedFrom, Labels.deploymentSpecHash, Labels.permissionsHash]) {
      expect(reference).toContain(key);
    }
  });
});
