import { describe, expect, it } from 'vitest';
import { allNamespacesCopyTargets, copiedCsvsCondition, copiedCsvsEnabled } from './copied-csvs-config.js';

describe('copied CSVs and the OLMConfig', () => {
  it('enables copies unless disableCopiedCSVs is true', () => {
    expect(copiedCsvsEnabled(undefined)).toBe(true);
    expect(copiedCsvsEnabled({})).toBe(true);
    expect(copiedCsvsEnabled({ spec: { features: {} } })).toBe(true);
    expect(copiedCsvsEnabled({ spec: { features: { disableCopiedCSVs: false } } })).toBe(true);
    expect(copiedCsvsEnabled({ spec: { features: { disableCopiedCSVs: true } } })).toBe(false);
  });

  it('targets every other live namespace when enabled, only existing protected ones when disabled', () => {
    const namespaces = [{ name: 'op' }, { name: 'a' }, { name: 'b' }, { name: 'gone', terminating: true }, { name: 'openshift' }];
    const protectedNamespaces = new Set(['openshift', 'op', 'missing']);
    expect(allNamespacesCopyTargets('op', namespaces, true, protectedNamespaces)).toEqual(['a', 'b', 'openshift']);
    expect(allNamespacesCopyTargets('op', namespaces, false, protectedNamespaces)).toEqual(['openshift']);
    expect(allNamespacesCopyTargets('op', namespaces, false, new Set())).toEqual([]);
  });

  it('gives upstream\'s four DisabledCopiedCSVs conditions', () => {
    expect(copiedCsvsCondition(true, true)).toEqual({
      type: 'DisabledCopiedCSVs',
      status: 'False',
      reason: 'CopiedCSVsEnabled',
      message: 'Copied CSVs are enabled and present across the cluster',
    });
    expect(copiedCsvsCondition(true, false)).toMatchObject({ status: 'False', reason: 'CopiedCSVsEnabled', message: 'Copied CSVs are enabled and at least one copied CSVs is missing' });
    expect(copiedCsvsCondition(false, true)).toMatchObject({
      status: 'True',
      reason: 'CopiedCSVsDisabled',
      message: 'Copied CSVs are disabled and no unexpected copied CSVs were found for operators installed in AllNamespace mode',
    });
    expect(copiedCsvsCondition(false, false)).toMatchObject({
      status: 'False',
      reason: 'CopiedCSVsDisabled',
      message: 'Copied CSVs are disabled and at least one unexpected copied CSV was found for an operator installed in AllNamespace mode',
    });
  });
});
