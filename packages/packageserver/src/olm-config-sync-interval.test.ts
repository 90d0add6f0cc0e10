import { describe, expect, it } from 'vitest';
import { syncIntervalOf } from './olm-config-sync-interval.js';

const olmConfig = (interval?: unknown) => ({ apiVersion: 'operators.coreos.com/v1', kind: 'OLMConfig', metadata: { name: 'cluster' }, spec: { features: { packageServerSyncInterval: interval } } });

describe('the OLMConfig sync interval', () => {
  it('reads spec.features.packageServerSyncInterval as a Go duration', () => {
    expect(syncIntervalOf(olmConfig('1h30m'), 300_000)).toBe(5_400_000);
    expect(syncIntervalOf(olmConfig('90s'), 300_000)).toBe(90_000);
  });

  it('falls back to the default without one, or with one that does not parse or is zero', () => {
    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, error() {}, warn: (message: string) => void warnings.push(message), child: () => logger };
    expect(syncIntervalOf(undefined, 300_000)).toBe(300_000);
    expect(syncIntervalOf(olmConfig(undefined), 300_000)).toBe(300_000);
    expect(syncIntervalOf(olmConfig('soon'), 300_000, logger)).toBe(300_000);
    expect(syncIntervalOf(olmConfig('0s'), 300_000, logger)).toBe(300_000);
    expect(warnings).toHaveLength(2);
  });
});
