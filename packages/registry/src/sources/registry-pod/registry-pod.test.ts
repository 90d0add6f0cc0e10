import { describe, expect, it } from 'vitest';
import { binaryQuantity, inferImagePullPolicy } from './registry-pod.js';

describe('registry pod details', () => {
  it('prints memory targets in binary SI as Kubernetes does, for GOMEMLIMIT', () => {
    expect(binaryQuantity('50Mi')).toBe('50Mi');
    expect(binaryQuantity('2048Mi')).toBe('2Gi');
    expect(binaryQuantity('1536Mi')).toBe('1536Mi');
    expect(binaryQuantity('0.5Gi')).toBe('512Mi');
    expect(binaryQuantity('100M')).toBe('100000000');
    expect(binaryQuantity('1e3')).toBe('1000');
    expect(binaryQuantity('4096')).toBe('4Ki');
    expect(binaryQuantity('lots')).toBe('lots');
  });

  it('pulls tags always and digests only when missing', () => {
    expect(inferImagePullPolicy('quay.io/acme/catalog:v1')).toBe('Always');
    expect(inferImagePullPolicy(`quay.io/acme/catalog@sha256:${'a'.repeat(64)}`)).toBe('IfNotPresent');
  });
});
