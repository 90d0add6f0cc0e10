import type { CatalogBundle, CatalogChannel, CatalogPackage, ChannelEntry } from '@olm/core';
import { hasErrorCode } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { channelGraph, channelHead, renderDot, renderMermaid, sortChannel, upgradeCandidates, upgradePath } from './graph.js';

function channel(name: string, entries: ChannelEntry[]): CatalogChannel {
  return { name, package: 'myoperator', entries };
}

function versionOf(bundleName: string): string {
  return bundleName.replace(/^.*\.v/, '');
}

function catalogPackage(channels: CatalogChannel[]): CatalogPackage {
  const bundles = new Map<string, CatalogBundle>();
  for (const item of channels) {
    for (const entry of item.entries) {
      bundles.set(entry.name, { name: entry.name, package: 'myoperator', image: `quay.io/x/${entry.name}`, version: versionOf(entry.name), properties: [] });
    }
  }
  return { name: 'myoperator', defaultChannel: channels[0]?.name ?? '', channels: new Map(channels.map((item) => [item.name, item])), bundles };
}

const names = (entries: readonly ChannelEntry[]): string[] => entries.map((entry) => entry.name);

function thrown(run: () => unknown): { code?: string; message: string } {
  try {
    run();
  } catch (error) {
    return error as { code?: string; message: string };
  }
  throw new Error('expected an error');
}

describe('update graph', () => {
  const linear = channel('stable', [
    { name: 'myoperator.v0.1.1' },
    { name: 'myoperator.v0.1.2', replaces: 'myoperator.v0.1.1' },
    { name: 'myoperator.v0.1.3', replaces: 'myoperator.v0.1.2' },
  ]);

  it('follows the replaces chain one hop at a time: 0.1.1 → 0.1.2 → 0.1.3', () => {
    expect(channelHead(linear).name).toBe('myoperator.v0.1.3');
    expect(names(sortChannel(linear))).toEqual(['myoperator.v0.1.3', 'myoperator.v0.1.2', 'myoperator.v0.1.1']);
    expect(names(upgradeCandidates(linear, { name: 'myoperator.v0.1.1', version: '0.1.1' }))).toEqual(['myoperator.v0.1.2']);
    expect(upgradePath(catalogPackage([linear]), 'stable', { name: 'myoperator.v0.1.1', version: '0.1.1' })).toEqual([
      { from: 'myoperator.v0.1.1', to: 'myoperator.v0.1.2', reason: 'replaces' },
      { from: 'myoperator.v0.1.2', to: 'myoperator.v0.1.3', reason: 'replaces' },
    ]);
    expect(upgradePath(catalogPackage([linear]), 'stable', { name: 'myoperator.v0.1.3', version: '0.1.3' })).toEqual([]);
  });

  it('skips: installs on a skipped version upgrade directly, and skipped entries are never candidates', () => {
    const skipping = channel('stable', [
      { name: 'myoperator.v1.0.0' },
      { name: 'myoperator.v1.0.1', replaces: 'myoperator.v1.0.0' },
      { name: 'myoperator.v1.0.2', replaces: 'myoperator.v1.0.1' },
      { name: 'myoperator.v1.0.3', replaces: 'myoperator.v1.0.0', skips: ['myoperator.v1.0.1', 'myoperator.v1.0.2'] },
    ]);
    expect(channelHead(skipping).name).toBe('myoperator.v1.0.3');
    expect(names(sortChannel(skipping))).toEqual(['myoperator.v1.0.3', 'myoperator.v1.0.0']);
    for (const from of ['myoperator.v1.0.0', 'myoperator.v1.0.1', 'myoperator.v1.0.2']) {
      expect(names(upgradeCandidates(skipping, { name: from, version: versionOf(from) }))).toEqual(['myoperator.v1.0.3']);
    }
    expect(upgradePath(catalogPackage([skipping]), 'stable', { name: 'myoperator.v1.0.1', version: '1.0.1' })).toEqual([
      { from: 'myoperator.v1.0.1', to: 'myoperator.v1.0.3', reason: 'skips' },
    ]);
  });

  it('skipRange: one hop to the head from any version in range, even not in the catalog', () => {
    const ranged = channel('stable', [
      { name: 'myoperator.v1.0.0' },
      { name: 'myoperator.v1.0.1', replaces: 'myoperator.v1.0.0' },
      { name: 'myoperator.v1.0.3', replaces: 'myoperator.v1.0.1', skipRange: '>=1.0.0 <1.0.3' },
    ]);
    const pkg = catalogPackage([ranged]);
    expect(upgradePath(pkg, 'stable', { name: 'myoperator.v1.0.0', version: '1.0.0' })).toEqual([
      { from: 'myoperator.v1.0.0', to: 'myoperator.v1.0.3', reason: 'skipRange' },
    ]);
    expect(names(upgradeCandidates(ranged, { name: 'myoperator.v1.0.0', version: '1.0.0' }))).toEqual(['myoperator.v1.0.3', 'myoperator.v1.0.1']);
    expect(names(upgradeCandidates(ranged, { name: 'myoperator.v1.0.2-hotfix', version: '1.0.2-hotfix' }))).toEqual(['myoperator.v1.0.3']);
    expect(names(upgradeCandidates(ranged, { name: 'other', version: '0.9.0' }))).toEqual([]);
    // An unparsable skipRange never matches; a missing version matches no range.
    expect(upgradeCandidates(channel('c', [{ name: 'a.v2.0.0', skipRange: '>=v1.0.0' }]), { name: 'a.v1.0.0', version: '1.0.0' })).toEqual([]);
    expect(upgradeCandidates(ranged, { name: 'myoperator.v0.9.9' })).toEqual([]);
  });

  describe('channel promotion (alpha/beta/stable example of the upstream docs)', () => {
    const alpha = channel('alpha', [
      { name: 'myoperator.v0.1.0' },
      { name: 'myoperator.v0.2.0', replaces: 'myoperator.v0.1.0' },
      { name: 'myoperator.v0.3.0', replaces: 'myoperator.v0.2.0' },
      { name: 'myoperator.v0.4.0', replaces: 'myoperator.v0.3.0' },
      { name: 'myoperator.v0.5.0', replaces: 'myoperator.v0.4.0' },
      { name: 'myoperator.v0.6.0', replaces: 'myoperator.v0.5.0' },
    ]);
    const beta = channel('beta', [
      { name: 'myoperator.v0.2.0', replaces: 'myoperator.v0.1.0' },
      { name: 'myoperator.v0.4.0', replaces: 'myoperator.v0.2.0' },
      { name: 'myoperator.v0.6.0', replaces: 'myoperator.v0.4.0' },
    ]);
    const stable = channel('stable', [{ name: 'myoperator.v0.4.0', replaces: 'myoperator.v0.1.0', skips: ['myoperator.v0.2.0', 'myoperator.v0.3.0'] }]);
    const pkg = catalogPackage([alpha, beta, stable]);

    it('each channel has one head', () => {
      expect([alpha, beta, stable].map((item) => channelHead(item).name)).toEqual(['myoperator.v0.6.0', 'myoperator.v0.6.0', 'myoperator.v0.4.0']);
    });

    it('alpha steps through every version; beta skips the unpromoted ones', () => {
      expect(upgradePath(pkg, 'alpha', { name: 'myoperator.v0.1.0', version: '0.1.0' }).map((hop) => hop.to)).toEqual([
        'myoperator.v0.2.0',
        'myoperator.v0.3.0',
        'myoperator.v0.4.0',
        'myoperator.v0.5.0',
        'myoperator.v0.6.0',
      ]);
      expect(upgradePath(pkg, 'beta', { name: 'myoperator.v0.2.0', version: '0.2.0' }).map((hop) => hop.to)).toEqual(['myoperator.v0.4.0', 'myoperator.v0.6.0']);
    });

    it('switching channel works only where the new channel has a direct successor', () => {
      // From alpha's v0.1.0, v0.2.0 or v0.3.0 a subscription moved to stable reaches v0.4.0 in one hop.
      for (const from of ['myoperator.v0.1.0', 'myoperator.v0.2.0', 'myoperator.v0.3.0']) {
        expect(upgradePath(pkg, 'stable', { name: from, version: versionOf(from) })).toEqual([
          { from, to: 'myoperator.v0.4.0', reason: from === 'myoperator.v0.1.0' ? 'replaces' : 'skips' },
        ]);
      }
      // From alpha's v0.3.0, beta has no entry that replaces or skips it: no upgrade.
      expect(upgradeCandidates(beta, { name: 'myoperator.v0.3.0', version: '0.3.0' })).toEqual([]);
      // From alpha's v0.1.0, beta offers v0.2.0 (which replaces it).
      expect(upgradePath(pkg, 'beta', { name: 'myoperator.v0.1.0', version: '0.1.0' }).map((hop) => hop.to)).toEqual([
        'myoperator.v0.2.0',
        'myoperator.v0.4.0',
        'myoperator.v0.6.0',
      ]);
    });
  });

  it('sortChannel reports OLM’s errors verbatim', () => {
    const twoChains = channel('stable', [{ name: 'a.v1' }, { name: 'a.v2', replaces: 'a.v1' }, { name: 'b.v1' }, { name: 'b.v2', replaces: 'b.v1' }, { name: 'c.v1' }]);
    expect(thrown(() => sortChannel(twoChains))).toMatchObject({
      code: 'OLM_REGISTRY_GRAPH',
      message:
        'a unique replacement chain within a channel is required to determine the relative order between channel entries, but 3 replacement chains were found in channel "stable" of package "myoperator": a.v2...a.v1, b.v2...b.v1, c.v1',
    });
    const loop = channel('stable', [{ name: 'a', replaces: 'b' }, { name: 'b', replaces: 'a' }]);
    expect(thrown(() => sortChannel(loop)).message).toBe('no channel heads (entries not replaced by another entry) found in channel "stable" of package "myoperator"');
    const headIntoLoop = channel('stable', [{ name: 'h', replaces: 'a' }, { name: 'a', replaces: 'b' }, { name: 'b', replaces: 'a' }]);
    expect(thrown(() => sortChannel(headIntoLoop)).message).toBe('a cycle exists in the chain of replacement beginning with "h" in channel "stable" of package "myoperator"');
    expect(thrown(() => channelHead(loop)).message).toBe('no channel head found in graph');
  });

  it('rejects an unknown channel with OLM_REGISTRY_NOT_FOUND', () => {
    const error = thrown(() => upgradePath(catalogPackage([linear]), 'beta', { name: 'x' }));
    expect(hasErrorCode(error, 'OLM_REGISTRY_NOT_FOUND')).toBe(true);
  });

  it('draws replaces, skips and skipRange edges in Mermaid and DOT', () => {
    const ranged = channel('stable', [
      { name: 'myoperator.v1.0.0' },
      { name: 'myoperator.v1.0.1', replaces: 'myoperator.v1.0.0' },
      { name: 'myoperator.v1.0.3', replaces: 'myoperator.v1.0.1', skips: ['myoperator.v1.0.2'], skipRange: '>=1.0.0 <1.0.3' },
    ]);
    const graph = channelGraph(catalogPackage([ranged]), ranged);
    expect(graph.head).toBe('myoperator.v1.0.3');
    expect(graph.edges).toEqual([
      { from: 'myoperator.v1.0.1', to: 'myoperator.v1.0.0', kind: 'replaces' },
      { from: 'myoperator.v1.0.3', to: 'myoperator.v1.0.1', kind: 'replaces' },
      { from: 'myoperator.v1.0.3', to: 'myoperator.v1.0.2', kind: 'skips' },
      { from: 'myoperator.v1.0.3', to: 'myoperator.v1.0.0', kind: 'skipRange', label: '>=1.0.0 <1.0.3' },
      { from: 'myoperator.v1.0.3', to: 'myoperator.v1.0.1', kind: 'skipRange', label: '>=1.0.0 <1.0.3' },
    ]);
    const mermaid = renderMermaid([graph]);
    expect(mermaid.split('\n')[0]).toBe('graph LR');
    expect(mermaid).toContain('myoperator-stable-myoperator.v1.0.3["myoperator.v1.0.3"]-- "skipRange(&gt;=1.0.0 &lt;1.0.3)" --> myoperator-stable-myoperator.v1.0.0["myoperator.v1.0.0"]');
    expect(mermaid).toContain('myoperator-stable-myoperator.v1.0.3["myoperator.v1.0.3"]-- skips --> myoperator-stable-myoperator.v1.0.2["myoperator.v1.0.2"]');
    const dot = renderDot([graph]);
    expect(dot).toContain('"myoperator/stable/myoperator.v1.0.3" -> "myoperator/stable/myoperator.v1.0.1" [label="replaces"];');
    expect(dot).toContain('"myoperator/stable/myoperator.v1.0.3" [label="myoperator.v1.0.3", penwidth=3];');
  });
});
