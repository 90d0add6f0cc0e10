import { describe, expect, it } from 'vitest';
import { bundlesForALaterPlan, type PlannedBundle } from './approval-split.js';

const database = (subscribed: boolean, manual = false): PlannedBundle => ({
  name: 'acme-database.v1.2.0',
  package: 'acme-database',
  manual,
  subscribed,
  properties: [{ type: 'olm.gvk', value: { group: 'acme.example.com', version: 'v1', kind: 'Database' } }],
});
const backup = (manual: boolean): PlannedBundle => ({
  name: 'acme-backup.v0.2.0',
  package: 'acme-backup',
  manual,
  subscribed: true,
  properties: [{ type: 'olm.gvk.required', value: { group: 'acme.example.com', version: 'v1', kind: 'Database' } }],
});

describe('bundlesForALaterPlan', () => {
  it('keeps a Manual bundle and the dependency no Subscription asks for in one plan that waits', () => {
    expect(bundlesForALaterPlan([backup(true), database(false)])).toEqual(new Set());
  });

  it('lets a subscribed Automatic bundle install now while an unrelated Manual one waits for a plan of its own', () => {
    const monitoring: PlannedBundle = { name: 'acme-monitoring.v1.0.0', package: 'acme-monitoring', manual: true, subscribed: true, properties: [] };
    expect(bundlesForALaterPlan([database(true), monitoring])).toEqual(new Set(['acme-monitoring.v1.0.0']));
  });

  it('holds everything in the waiting plan when an Automatic bundle needs the Manual one', () => {
    expect(bundlesForALaterPlan([backup(false), database(true, true)])).toEqual(new Set());
  });
});
