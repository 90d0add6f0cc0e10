import { describe, expect, it } from 'vitest';
import { bundleUnpackSettings } from './bundle-unpack-settings.js';

const group = (annotations?: Record<string, string>) => ({ metadata: { name: 'og', ...(annotations ? { annotations } : {}) } });

describe('bundle unpack settings of an OperatorGroup', () => {
  it('reads upstream\'s timeout and minimum retry interval annotations as Go durations', () => {
    expect(bundleUnpackSettings(group())).toEqual({});
    expect(bundleUnpackSettings(undefined)).toEqual({});
    expect(
      bundleUnpackSettings(group({ 'operatorframework.io/bundle-unpack-timeout': '1m30s', 'operatorframework.io/bundle-unpack-min-retry-interval': '10m' })),
    ).toEqual({ timeoutMs: 90_000, minRetryIntervalMs: 600_000 });
  });

  it('keeps 0 as "no timeout" and ignores negative values, as upstream', () => {
    expect(bundleUnpackSettings(group({ 'operatorframework.io/bundle-unpack-timeout': '0' }))).toEqual({ timeoutMs: 0 });
    expect(bundleUnpackSettings(group({ 'operatorframework.io/bundle-unpack-timeout': '-1m', 'operatorframework.io/bundle-unpack-min-retry-interval': '0s' }))).toEqual({});
  });

  it('fails on a value that is not a duration, with upstream\'s message and how to fix it', () => {
    expect(() => bundleUnpackSettings(group({ 'operatorframework.io/bundle-unpack-min-retry-interval': 'invalid' }))).toThrow(
      'failed to parse unpack retry annotation(operatorframework.io/bundle-unpack-min-retry-interval: invalid): time: invalid duration "invalid"; fix the annotation of OperatorGroup og (a Go duration such as 10m or 1h30m)',
    );
  });
});
