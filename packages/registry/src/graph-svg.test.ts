import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from './build-catalog.js';
import { channelGraph } from './graph.js';
import { renderSvg } from './graph-svg.js';

const examples = fileURLToPath(new URL('../../../examples/catalog', import.meta.url));

/** The elements of one kind, with their attributes and content, read back from the SVG text. */
function elements(svg: string, tag: string): Array<{ attributes: string; content: string }> {
  return [...svg.matchAll(new RegExp(`<${tag}(\\s[^>]*?)?(?:/>|>([\\s\\S]*?)</${tag}>)`, 'g'))].map((match) => ({ attributes: match[1] ?? '', content: match[2] ?? '' }));
}

describe('the update graph as SVG', async () => {
  const catalog = await loadCatalog(examples);
  const acme = catalog.package('acme-database')!;
  const graphs = [...acme.channels.values()].map((channel) => channelGraph(acme, channel));
  const svg = renderSvg(graphs, { installed: 'acme-database.v1.1.0' });

  it('is one well-formed, self-contained SVG document labelled for screen readers', () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-labelledby="graph-title graph-desc"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    for (const tag of ['g', 'svg', 'title', 'text', 'defs', 'marker']) {
      expect(svg.match(new RegExp(`<${tag}[\\s>]`, 'g'))?.length ?? 0).toBe(svg.match(new RegExp(`</${tag}>`, 'g'))?.length ?? 0);
    }
    expect(svg).not.toMatch(/<script|href="http|@import|<image/);
    expect(elements(svg, 'title')[0]!.content).toBe('Update graph of acme-database');
    expect(elements(svg, 'desc')[0]!.content).toContain('Package acme-database, channel stable: 4 entries, head acme-database.v1.2.0, installed acme-database.v1.1.0, deprecated acme-database.v1.1.1');
  });

  it('draws every entry of every channel once, oldest version first, with its version and marks', () => {
    const entries = [...svg.matchAll(/<g (role="listitem"[^>]*)>([\s\S]*?)<\/g>/g)].map((match) => ({ attributes: match[1]!, content: match[2]! }));
    const labels = entries.map((entry) => /aria-label="([^"]*)"/.exec(entry.attributes)![1]!);
    expect(labels).toEqual([
      'acme-database.v1.2.0, version 1.2.0',
      'acme-database.v2.0.0, version 2.0.0, channel head',
      'acme-database.v1.0.0, version 1.0.0',
      'acme-database.v1.1.0, version 1.1.0, installed',
      'acme-database.v1.1.1, version 1.1.1, deprecated: acme-database.v1.1.1 can lose backups on restart; upgrade to acme-database.v1.2.0.',
      'acme-database.v1.2.0, version 1.2.0, channel head',
    ]);
    const installed = entries.find((entry) => entry.attributes.includes('installed'))!;
    expect(installed.content).toContain('fill="#dbeafe"');
    const deprecated = entries.find((entry) => entry.attributes.includes('deprecated'))!;
    expect(deprecated.content).toContain('text-decoration="line-through"');
    const head = entries.find((entry) => entry.attributes.includes('v2.0.0'))!;
    expect(head.content).toContain('stroke-width="3"');
  });

  it('draws one arc per edge, styled by kind, each saying what it means (range text escaped)', () => {
    const paths = elements(svg, 'path').filter((path) => path.content.includes('<title>'));
    const expected = graphs.flatMap((graph) => graph.edges);
    expect(paths).toHaveLength(expected.length);
    const titles = paths.map((path) => /<title>(.*)<\/title>/.exec(path.content)![1]);
    expect(titles).toContain('acme-database.v1.2.0 skips acme-database.v1.1.1');
    expect(titles).toContain('acme-database.v2.0.0 skipRange includes acme-database.v1.2.0 (skipRange &gt;=1.0.0 &lt;2.0.0)');
    expect(paths.filter((path) => path.attributes.includes('stroke-dasharray="7 4"'))).toHaveLength(expected.filter((edge) => edge.kind === 'skips').length);
    expect(svg).not.toMatch(/>=1\.0\.0 <2/);
  });

  it('is the same text for the same graph, and bounds the edges drawn per channel', () => {
    expect(renderSvg(graphs, { installed: 'acme-database.v1.1.0' })).toBe(svg);
    const capped = renderSvg(graphs, { maxEdgesPerChannel: 1 });
    expect(capped).toContain('acme-database / stable (3 more edges not drawn)');
  });

  it('is wide enough for its legend when the graph is narrow (one channel of two entries)', () => {
    const backup = catalog.package('acme-backup')!;
    const narrow = renderSvg([channelGraph(backup, backup.channels.get('stable')!)]);
    const width = Number(/^<svg [^>]*width="(\d+)"/.exec(narrow)![1]);
    const legendLine = elements(narrow, 'text').find((text) => text.content.startsWith('thick border'))!;
    // The legend's last line starts at the margin; ~7.2 px per character at 12 px sans-serif.
    expect(width).toBeGreaterThanOrEqual(24 + legendLine.content.length * 7.2);
  });
});
