import { describe, expect, it } from 'vitest';
import { repositoryOf } from './catalog-source.js';
import { pollIntervalMs, sourceOf } from './cluster-catalog-spec.js';
import { setProgressing, setServing, setUserSpecifiedUnavailable } from './cluster-catalog-status.js';
import type { ClusterCatalog, ClusterCatalogStatus } from '@olm/api';

const catalog = (spec: unknown, annotations?: Record<string, string>) => ({ metadata: { name: 'c', ...(annotations ? { annotations } : {}) }, spec }) as Pick<ClusterCatalog, 'metadata' | 'spec'>;
const digest = `sha256:${'ab'.repeat(32)}`;

describe('sourceOf', () => {
  it('refuses what upstream refuses, with its words', () => {
    expect(sourceOf(catalog({ source: { type: 'Git' } }))).toEqual({ ok: false, message: 'unknown source type "Git"' });
    expect(sourceOf(catalog({ source: { type: 'Image' } }))).toEqual({ ok: false, message: 'error parsing ClusterCatalog "c", image source is nil' });
    expect(sourceOf(catalog({ source: { type: 'Image', image: { ref: `quay.io/a/b@${digest}`, pollIntervalMinutes: 5 } } }))).toEqual({
      ok: false,
      message: 'cannot specify pollIntervalMinutes while using digest-based image',
    });
  });

  it('reads an image source, or a directory source from the annotation', () => {
    expect(sourceOf(catalog({ source: { type: 'Image', image: { ref: 'quay.io/a/b:v1', pollIntervalMinutes: 5 } } }))).toEqual({ ok: true, spec: { type: 'image', ref: 'quay.io/a/b:v1' }, key: 'image:quay.io/a/b:v1' });
    expect(sourceOf(catalog({ source: { type: 'Image', image: { ref: 'quay.io/a/b:v1' } } }, { 'olm.operatorframework.io/source-directory': 'x' }))).toMatchObject({ ok: true, spec: { type: 'directory', name: 'x' } });
  });

  it('polls only with pollIntervalMinutes', () => {
    expect(pollIntervalMs(catalog({ source: { type: 'Image', image: { ref: 'r:1', pollIntervalMinutes: 2 } } }))).toBe(120_000);
    expect(pollIntervalMs(catalog({ source: { type: 'Image', image: { ref: 'r:1' } } }))).toBeUndefined();
  });
});

describe('repositoryOf', () => {
  it('drops the tag or digest, not a registry port', () => {
    expect(repositoryOf('localhost:5000/acme/catalog:v1')).toBe('localhost:5000/acme/catalog');
    expect(repositoryOf(`localhost:5000/acme/catalog@${digest}`)).toBe('localhost:5000/acme/catalog');
    expect(repositoryOf('localhost:5000/acme/catalog')).toBe('localhost:5000/acme/catalog');
  });
});

describe('status, as meta.SetStatusCondition keeps it', () => {
  it('keeps a condition\'s transition time while its status stays, and moves it when the status changes', () => {
    const status: ClusterCatalogStatus = {};
    setProgressing(status, 1, '2026-01-01T00:00:00Z');
    setServing(status, 1, '2026-01-01T00:00:00Z', { resolvedRef: `r@${digest}`, lastUnpacked: '2026-01-01T00:00:00.123Z', baseUrl: 'https://x/catalogs/c' });
    expect(status.lastUnpacked).toBe('2026-01-01T00:00:00Z');
    setProgressing(status, 2, '2026-01-02T00:00:00Z', { message: 'boom', terminal: false });
    expect(status.conditions?.find((condition) => condition.type === 'Progressing')).toEqual({
      type: 'Progressing', status: 'True', reason: 'Retrying', message: 'boom', observedGeneration: 2, lastTransitionTime: '2026-01-01T00:00:00Z',
    });
    setUserSpecifiedUnavailable(status, 3, '2026-01-03T00:00:00Z');
    expect(status).not.toHaveProperty('urls');
    expect(status.conditions?.find((condition) => condition.type === 'Serving')).toMatchObject({ status: 'False', reason: 'UserSpecifiedUnavailable', lastTransitionTime: '2026-01-03T00:00:00Z' });
  });
});
