import { describe, expect, it } from 'vitest';
import { appliedWithWarningsMessage, stepFieldPath } from './step-warnings.js';

const resource = { sourceName: 'c', sourceNamespace: 'olm', group: 'monitoring.coreos.com', version: 'v1', kind: 'ServiceMonitor', name: 'metrics', manifest: '{}' };

describe('AppliedWithWarnings events', () => {
  it("word the message as upstream's, naming the operator when the step has one", () => {
    expect(appliedWithWarningsMessage({ resolving: 'etcd.v0.9.2', resource }, ['unknown field "spec.a"', 'unknown field "spec.b"'])).toBe(
      '2 warning(s) generated during installation of operator "etcd.v0.9.2" (ServiceMonitor "metrics"): unknown field "spec.a", unknown field "spec.b"',
    );
    expect(appliedWithWarningsMessage({ resolving: '', resource }, ['v1 ServiceMonitor is deprecated'])).toBe(
      '1 warning(s) generated during operator installation (ServiceMonitor "metrics"): v1 ServiceMonitor is deprecated',
    );
  });

  it('point at the step within the plan', () => {
    expect(stepFieldPath(3)).toBe('status.plan[3]');
  });
});
