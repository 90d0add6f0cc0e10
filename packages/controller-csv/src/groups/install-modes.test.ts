import { hasErrorCode } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { toInstallModeSet, unsupportedTargetsReason, type InstallModeType } from './install-modes.js';

const modes = (...supported: InstallModeType[]) =>
  toInstallModeSet(
    (['OwnNamespace', 'SingleNamespace', 'MultiNamespace', 'AllNamespaces'] as const).map((type) => ({
      type,
      supported: supported.includes(type),
    })),
  );

describe('install mode support', () => {
  it.each([
    { name: 'own namespace', set: modes('OwnNamespace'), targets: ['operators'], reason: undefined },
    {
      name: 'own namespace unsupported',
      set: modes('SingleNamespace'),
      targets: ['operators'],
      reason: 'OwnNamespace InstallModeType not supported, cannot configure to watch own namespace',
    },
    { name: 'one other namespace', set: modes('SingleNamespace'), targets: ['team-a'], reason: undefined },
    {
      name: 'one other namespace unsupported',
      set: modes('OwnNamespace', 'MultiNamespace'),
      targets: ['team-a'],
      reason: 'SingleNamespace InstallModeType not supported, cannot configure to watch one namespace',
    },
    { name: 'all namespaces', set: modes('AllNamespaces'), targets: [''], reason: undefined },
    {
      name: 'all namespaces unsupported',
      set: modes('OwnNamespace', 'SingleNamespace', 'MultiNamespace'),
      targets: [''],
      reason: 'AllNamespaces InstallModeType not supported, cannot configure to watch all namespaces',
    },
    {
      name: 'several namespaces unsupported',
      set: modes('OwnNamespace', 'SingleNamespace'),
      targets: ['a', 'b', 'c'],
      reason: 'MultiNamespace InstallModeType not supported, cannot configure to watch 3 namespaces',
    },
    { name: 'several namespaces', set: modes('MultiNamespace'), targets: ['a', 'b'], reason: undefined },
    {
      name: 'several namespaces including its own, own unsupported',
      set: modes('MultiNamespace'),
      targets: ['a', 'operators'],
      reason: 'OwnNamespace InstallModeType not supported, cannot configure to watch own namespace',
    },
    {
      name: 'all namespaces among several',
      set: modes('MultiNamespace', 'OwnNamespace', 'AllNamespaces'),
      targets: ['a', ''],
      reason: 'operatorgroup has invalid selected namespaces, NamespaceAll found when |selected namespaces| > 1',
    },
    {
      name: 'no namespaces',
      set: modes('OwnNamespace', 'SingleNamespace', 'MultiNamespace', 'AllNamespaces'),
      targets: [],
      reason: 'operatorgroup has invalid selected namespaces, cannot configure to watch zero namespaces',
    },
  ])('$name', ({ set, targets, reason }) => {
    expect(unsupportedTargetsReason(set, 'operators', targets)).toBe(reason);
  });

  it('treats a mode the CSV does not list as unsupported', () => {
    const set = toInstallModeSet([{ type: 'AllNamespaces', supported: true }]);
    expect(unsupportedTargetsReason(set, 'operators', ['operators'])).toMatch(/^OwnNamespace InstallModeType not supported/);
  });

  it('rejects duplicate install mode types', () => {
    const error = (() => {
      try {
        toInstallModeSet([
          { type: 'OwnNamespace', supported: true },
          { type: 'OwnNamespace', supported: false },
        ]);
      } catch (caught) {
        return caught;
      }
    })();
    expect(hasErrorCode(error, 'OLM_CSV_INVALID_INSTALL_MODES')).toBe(true);
    expect((error as Error).message).toBe('InstallMode list contains duplicates, cannot make set: [{OwnNamespace true} {OwnNamespace false}]');
  });
});
