import { definePlugin, type Plugin } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { availableControllers, leaseNameFor, selectControllers } from './controller-selection.js';

const plugin = (id: string): Plugin => definePlugin({ id, version: '1.0.0', init() {} });
const list = ['registry', 'controller-runtime', 'controller-csv', 'controller-catalog', 'plugin-cel'].map(plugin);

describe('controller selection', () => {
  it('names controllers by plugin id without the prefix; controller-runtime is not one', () => {
    expect(availableControllers(list)).toEqual(['csv', 'catalog']);
  });

  it('keeps every other plugin and only the named controllers', () => {
    expect(selectControllers(list, ['catalog']).map((each) => each.id)).toEqual(['registry', 'controller-runtime', 'controller-catalog', 'plugin-cel']);
    expect(selectControllers(list, []).map((each) => each.id)).toEqual(list.map((each) => each.id));
  });

  it('refuses unknown names with a usage error listing the known ones', () => {
    expect(() => selectControllers(list, ['csv', 'olm', 'x'])).toThrowError('--controllers: unknown controller "olm", "x"; this distribution has "csv", "catalog"');
    let caught: unknown;
    try {
      selectControllers(list, ['olm']);
    } catch (error) {
      caught = error;
    }
    expect((caught as { code?: string } | undefined)?.code).toBe('OLM_CLI_USAGE');
  });

  it('runs a controller that runs with another whenever that one runs, and never names it alone', () => {
    const companion = { id: 'controller-operators', runsWith: 'csv' };
    const withCompanion = [...list, companion];
    expect(availableControllers(withCompanion)).toEqual(['csv', 'catalog']);
    expect(selectControllers(withCompanion, ['csv']).map((each) => each.id)).toEqual(['registry', 'controller-runtime', 'controller-csv', 'plugin-cel', 'controller-operators']);
    expect(selectControllers(withCompanion, ['catalog']).map((each) => each.id)).not.toContain('controller-operators');
    expect(selectControllers(withCompanion, []).map((each) => each.id)).toContain('controller-operators');
    expect(() => selectControllers(withCompanion, ['operators'])).toThrowError('--controllers: unknown controller "operators"; this distribution has "csv", "catalog"');
  });

  it('uses the default Lease when all controllers run, else one per set', () => {
    expect(leaseNameFor('olm-controllers', ['csv', 'catalog'], [])).toBe('olm-controllers');
    expect(leaseNameFor('olm-controllers', ['csv', 'catalog'], ['catalog', 'csv'])).toBe('olm-controllers');
    expect(leaseNameFor('olm-controllers', ['csv', 'catalog'], ['catalog'])).toBe('olm-controllers-catalog');
  });
});
