import type { ClusterServiceVersion } from '@olm/api';
import { describe, expect, it } from 'vitest';
import { unknownDeploymentReference } from './strategy-references.js';

const csv = (spec: Record<string, unknown>) =>
  ({ spec: { install: { strategy: 'deployment', spec: { deployments: [{ name: 'operator', spec: {} }] } }, ...spec } }) as unknown as ClusterServiceVersion;

describe('unknownDeploymentReference', () => {
  it('accepts APIServices and webhooks served by strategy deployments', () => {
    expect(
      unknownDeploymentReference(
        csv({
          apiservicedefinitions: { owned: [{ group: 'g.example.com', version: 'v1', kind: 'K', name: 'ks', deploymentName: 'operator' }] },
          webhookdefinitions: [{ generateName: 'w.example.com', deploymentName: 'operator' }],
        }),
      ),
    ).toBeUndefined();
    expect(unknownDeploymentReference(csv({}))).toBeUndefined();
  });

  it('names the owned APIService or webhook whose deployment the strategy lacks', () => {
    expect(unknownDeploymentReference(csv({ apiservicedefinitions: { owned: [{ group: 'g.example.com', version: 'v1', kind: 'K', name: 'ks', deploymentName: 'api' }] } }))).toBe(
      'install strategy has no deployment api for owned APIService v1.g.example.com',
    );
    expect(unknownDeploymentReference(csv({ webhookdefinitions: [{ generateName: 'w.example.com', deploymentName: 'hooks' }] }))).toBe(
      'install strategy has no deployment hooks for webhook w.example.com',
    );
  });
});
