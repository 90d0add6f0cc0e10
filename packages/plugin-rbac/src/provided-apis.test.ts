import { describe, expect, it } from 'vitest';
import { aggregationLabelKey, parseProvidedApis } from './provided-apis.js';

describe('parseProvidedApis', () => {
  it('parses Kind.version.group leniently, deduplicated and sorted', () => {
    expect(parseProvidedApis(['Prometheus.v1.monitoring.coreos.com, Alertmanager.v1.monitoring.coreos.com', 'nodots', 'One.dot', ''])).toEqual([
      { kind: 'Alertmanager', version: 'v1', group: 'monitoring.coreos.com' },
      { kind: 'Prometheus', version: 'v1', group: 'monitoring.coreos.com' },
    ]);
  });

  it('builds the aggregation label key from the FNV-1a 64 of Kind.version.group', () => {
    expect(aggregationLabelKey({ kind: 'Kind', version: 'v1', group: 'g' }, 'view')).toMatch(/^olm\.opgroup\.permissions\/aggregate-to-[0-9a-f]{1,16}-view$/);
  });
});
