import { describe, expect, it } from 'vitest';
import { boot } from '../kernel/boot.js';
import { hasErrorCode, KernelErrorCodes } from '../kernel/errors.js';
import type { ExtensionPoint } from '../kernel/extension-point.js';
import { contribute, definePlugin } from '../kernel/plugin.js';
import { olmExtensionPoints } from './index.js';

describe('olmExtensionPoints', () => {
  it('lists every OLM contract with its cardinality', () => {
    const summary = Object.fromEntries(
      Object.entries(olmExtensionPoints).map(([name, point]: [string, ExtensionPoint<unknown>]) => [name, `${point.id} ${point.cardinality}`]),
    );
    expect(summary).toEqual({
      propertyTypes: 'olm.propertyTypes keyed',
      constraintEvaluators: 'olm.constraintEvaluators keyed',
      catalogSourceTypes: 'olm.catalogSourceTypes keyed',
      installStrategies: 'olm.installStrategies keyed',
      satBackend: 'olm.satBackend single',
      namespaceResolver: 'olm.namespaceResolver single',
      rbacGenerator: 'olm.rbacGenerator single',
      bundlePuller: 'olm.bundlePuller single',
      catalogServerCertificate: 'olm.catalogServerCertificate single',
      imageSignatureVerifier: 'olm.imageSignatureVerifier single',
      reconcilers: 'olm.reconcilers keyed',
      informerCache: 'olm.informerCache single',
      kubeClient: 'olm.kubeClient single',
      logger: 'olm.logger single',
      metrics: 'olm.metrics single',
    });
  });

  it('keys each keyed point by the upstream name of what it extends', () => {
    const { propertyTypes, constraintEvaluators, catalogSourceTypes, installStrategies, reconcilers } = olmExtensionPoints;
    expect(propertyTypes.keyOf({ type: 'olm.gvk', parse: (value) => value })).toBe('olm.gvk');
    expect(constraintEvaluators.keyOf({ kind: 'cel', compile: () => ({ test: () => true, describe: () => '' }) })).toBe('cel');
    expect(catalogSourceTypes.keyOf({ sourceType: 'grpc', open: () => Promise.reject(new Error('unused')) })).toBe('grpc');
    expect(installStrategies.keyOf({ strategy: 'deployment', install: async () => {}, checkHealth: async () => ({ healthy: true }) })).toBe('deployment');
    expect(
      reconcilers.keyOf({ name: 'subscription', for: { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'Subscription' }, reconcile: async () => {} }),
    ).toBe('subscription');
  });

  it('tells how to provide a missing point', () => {
    for (const point of Object.values(olmExtensionPoints) as ExtensionPoint<unknown>[]) {
      if (point.id === 'olm.reconcilers') continue; // nobody requires it: an app may run no controllers
      expect(point.hint, point.id).toMatch(/boot|provide/);
    }
  });

  it('lets two constraint evaluators share the point by kind, but not one kind', async () => {
    const { constraintEvaluators } = olmExtensionPoints;
    const evaluator = (kind: string) => ({ kind, compile: () => ({ test: () => true, describe: () => `with ${kind}` }) });
    const kernel = await boot({
      plugins: [
        definePlugin({ id: 'resolver', version: '1.0.0', provides: [constraintEvaluators], init: () => ({ provide: [contribute(constraintEvaluators, evaluator('gvk'))] }) }),
        definePlugin({ id: 'plugin-cel', version: '1.0.0', provides: [constraintEvaluators], init: () => ({ provide: [contribute(constraintEvaluators, evaluator('cel'))] }) }),
      ],
    });
    expect([...kernel.get(constraintEvaluators).keys()].sort()).toEqual(['cel', 'gvk']);
    await kernel.stop();

    const error = await boot({
      plugins: [
        definePlugin({ id: 'plugin-cel', version: '1.0.0', provides: [constraintEvaluators], init: () => ({ provide: [contribute(constraintEvaluators, evaluator('cel'))] }) }),
        definePlugin({ id: 'plugin-cel-fast', version: '1.0.0', provides: [constraintEvaluators], init: () => ({ provide: [contribute(constraintEvaluators, evaluator('cel'))] }) }),
      ],
    }).catch((caught: unknown) => caught);
    expect(hasErrorCode(error, KernelErrorCodes.bootFailed)).toBe(true);
    expect((error as Error).message).toContain('key "cel" of extension point "olm.constraintEvaluators" is provided by both "plugin-cel" and "plugin-cel-fast"');
  });
});
