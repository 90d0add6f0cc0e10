import { describe, expect, it } from 'vitest';
import { apiKey, formatProvidedApis, parseProvidedApis } from './provided-apis.js';

describe('olm.providedAPIs', () => {
  it('round-trips sorted, ignoring spaces and malformed items', () => {
    const apis = parseProvidedApis(' Prometheus.v1.monitoring.coreos.com , Alertmanager.v1.monitoring.coreos.com,,bad');
    expect([...apis].sort()).toEqual(['Alertmanager.v1.monitoring.coreos.com', 'Prometheus.v1.monitoring.coreos.com']);
    expect(formatProvidedApis(apis)).toBe('Alertmanager.v1.monitoring.coreos.com,Prometheus.v1.monitoring.coreos.com');
    expect(parseProvidedApis(undefined).size).toBe(0);
  });

  it('names an API Kind.version.group', () => {
    expect(apiKey({ group: 'packages.apps.redhat.com', version: 'v1alpha1', kind: 'PackageManifest' })).toBe(
      'PackageManifest.v1alpha1.packages.apps.redhat.com',
    );
  });
});
