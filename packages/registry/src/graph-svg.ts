import { compareVersions, parseVersionTolerant, type Version } from '@olm/semver-range';
import { compareStrings } from '@olm/go-format';
import type { ChannelGraph, GraphEdge, UpgradeReason } from './graph.js';

export interface SvgGraphOptions {
  /** A bundle to mark as installed (e.g. a Subscription's `installedCSV`). */
  readonly installed?: string;
  /** Most edges drawn per channel; the rest are counted in the channel's caption. Default 2,000. */
  readonly maxEdgesPerChannel?: number;
}

const node = { height: 44, gap: 56 };
const margin = 24;
const bandCaption = 30;
const arcStep = 16;
const legendHeight = 60;
/** The legend's widest line, so that a narrow graph (one short channel) does not cut it off. */
const legendWidth = 640;
const characterWidth = 7.2;
const maxLabelCharacters = 44;
const edgeStyles: Record<UpgradeReason, { readonly color: string; readonly dash: string; readonly meaning: string }> = {
  replaces: { color: '#374151', dash: '', meaning: 'replaces' },
  skips: { color: '#b45309', dash: '7 4', meaning: 'skips' },
  skipRange: { color: '#047857', dash: '2 3', meaning: 'skipRange includes' },
};

/** Text for SVG content and attribute values. */
function xml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const truncate = (text: string): string => (text.length > maxLabelCharacters ? `${text.slice(0, maxLabelCharacters - 1)}…` : text);

/** Oldest first: by version where the bundles have one (parsed leniently), else in channel order. */
function columnsOf(graph: ChannelGraph): string[] {
  const parsed = new Map<string, Version | undefined>();
  for (const name of graph.nodes) {
    const text = graph.versions?.[name];
    try {
      parsed.set(name, text === undefined ? undefined : parseVersionTolerant(text));
    } catch {
      parsed.set(name, undefined);
    }
  }
  const order = new Map(graph.nodes.map((name, index) => [name, index]));
  return [...graph.nodes].sort((a, b) => {
    const left = parsed.get(a);
    const right = parsed.get(b);
    if (left !== undefined && right !== undefined) return compareVersions(left, right) || compareStrings(a, b);
    return order.get(a)! - order.get(b)!;
  });
}

interface Band {
  readonly graph: ChannelGraph;
  readonly columns: readonly string[];
  readonly edges: readonly GraphEdge[];
  readonly hiddenEdges: number;
  readonly top: number;
  readonly height: number;
}

/**
 * The update graph as an SVG picture, one band per channel: entries left to right from the oldest
 * version, each edge an arc from the newer entry to the one it replaces, skips or whose version its
 * skipRange includes (arcs of replaces above, of skips and skipRange below, higher the farther they
 * reach). The channel head has a thick border; the installed bundle is filled; deprecated entries and
 * channels are red and say why in their tooltip. Self-contained (inline styles, no fonts or scripts) and
 * labelled for screen readers (`role="img"`, a title and a description, a title per entry and edge).
 */
export function renderSvg(graphs: readonly ChannelGraph[], options: SvgGraphOptions = {}): string {
  const maxEdges = options.maxEdgesPerChannel ?? 2000;
  const sorted = [...graphs].sort((a, b) => compareStrings(a.package, b.package) || compareStrings(a.channel, b.channel));
  const longest = Math.max(12, ...sorted.flatMap((graph) => graph.nodes.map((name) => truncate(name).length)));
  const width = Math.ceil(longest * characterWidth) + 20;
  const columnWidth = width + node.gap;
  const bands: Band[] = [];
  let top = margin;
  for (const graph of sorted) {
    const columns = columnsOf(graph);
    const edges = graph.edges.slice(0, maxEdges);
    const reach = (edge: GraphEdge) => Math.abs(columns.indexOf(edge.from) - columns.indexOf(edge.to));
    const above = Math.max(0, ...edges.filter((edge) => edge.kind === 'replaces').map(reach));
    const below = Math.max(0, ...edges.filter((edge) => edge.kind !== 'replaces').map(reach));
    const height = bandCaption + arcHeight(above) + node.height + arcHeight(below) + margin;
    bands.push({ graph, columns, edges, hiddenEdges: graph.edges.length - edges.length, top, height });
    top += height;
  }
  const totalWidth = Math.max(legendWidth, margin * 2 + Math.max(1, ...bands.map((band) => band.columns.length)) * columnWidth - node.gap);
  const totalHeight = top + legendHeight;
  const packages = [...new Set(sorted.map((graph) => graph.package))];
  const description = bands.map((band) => describeBand(band.graph, options.installed)).join(' ');
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-labelledby="graph-title graph-desc" width="${totalWidth}" height="${totalHeight}" viewBox="0 0 ${totalWidth} ${totalHeight}" font-family="sans-serif" font-size="12">`,
    `<title id="graph-title">${xml(`Update graph of ${packages.join(', ')}`)}</title>`,
    `<desc id="graph-desc">${xml(description)}</desc>`,
    '<defs>',
    ...Object.entries(edgeStyles).map(([kind, style]) => `<marker id="arrow-${kind}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="${style.color}"/></marker>`),
    '</defs>',
    '<rect width="100%" height="100%" fill="#ffffff"/>',
  ];
  for (const band of bands) parts.push(renderBand(band, { width, columnWidth, installed: options.installed }));
  parts.push(renderLegend(totalHeight - legendHeight + 8), '</svg>');
  return `${parts.join('\n')}\n`;
}

const arcHeight = (reach: number): number => (reach <= 1 ? arcStep : arcStep * (1 + Math.log2(reach)) + 8);

function describeBand(graph: ChannelGraph, installed: string | undefined): string {
  const head = graph.head ? `, head ${graph.head}` : '';
  const mark = installed && graph.nodes.includes(installed) ? `, installed ${installed}` : '';
  const deprecated = Object.keys(graph.deprecations?.entries ?? {});
  const marks = deprecated.length > 0 ? `, deprecated ${deprecated.join(', ')}` : '';
  return `Package ${graph.package}, channel ${graph.channel}: ${graph.nodes.length} entries${head}${mark}${marks}; ${graph.edges.length} edges.`;
}

function renderBand(band: Band, layout: { readonly width: number; readonly columnWidth: number; readonly installed: string | undefined }): string {
  const { graph, columns } = band;
  const channelDeprecation = graph.deprecations?.channel ?? graph.deprecations?.package;
  const above = Math.max(0, ...band.edges.filter((edge) => edge.kind === 'replaces').map((edge) => Math.abs(columns.indexOf(edge.from) - columns.indexOf(edge.to))));
  const nodeTop = band.top + bandCaption + arcHeight(above);
  const x = (name: string) => margin + columns.indexOf(name) * layout.columnWidth;
  const caption = `${graph.package} / ${graph.channel}${channelDeprecation ? ' (deprecated)' : ''}${band.hiddenEdges > 0 ? ` (${band.hiddenEdges} more edges not drawn)` : ''}`;
  const parts = [
    `<g role="list" aria-label="${xml(`channel ${graph.channel} of ${graph.package}`)}">`,
    `<text x="${margin}" y="${band.top + 16}" font-weight="bold" fill="${channelDeprecation ? '#b91c1c' : '#111827'}">${xml(caption)}${channelDeprecation ? `<title>${xml(channelDeprecation)}</title>` : ''}</text>`,
  ];
  for (const edge of band.edges) {
    if (!columns.includes(edge.from) || !columns.includes(edge.to)) continue;
    parts.push(renderEdge(edge, x(edge.from) + layout.width / 2, x(edge.to) + layout.width / 2, nodeTop, Math.abs(columns.indexOf(edge.from) - columns.indexOf(edge.to))));
  }
  for (const name of columns) parts.push(renderNode(graph, name, x(name), nodeTop, layout.width, layout.installed));
  parts.push('</g>');
  return parts.join('\n');
}

function renderEdge(edge: GraphEdge, fromX: number, toX: number, nodeTop: number, reach: number): string {
  const style = edgeStyles[edge.kind];
  const up = edge.kind === 'replaces';
  const y = up ? nodeTop : nodeTop + node.height;
  const bend = (up ? -1 : 1) * arcHeight(reach) * 1.3;
  const path = `M ${fromX} ${y} C ${fromX} ${y + bend}, ${toX} ${y + bend}, ${toX} ${y}`;
  const what = `${edge.from} ${style.meaning} ${edge.to}${edge.kind === 'skipRange' ? ` (skipRange ${edge.label ?? ''})` : ''}`;
  return `<path d="${path}" fill="none" stroke="${style.color}" stroke-width="1.5"${style.dash ? ` stroke-dasharray="${style.dash}"` : ''} marker-end="url(#arrow-${edge.kind})"><title>${xml(what)}</title></path>`;
}

function renderNode(graph: ChannelGraph, name: string, x: number, y: number, width: number, installed: string | undefined): string {
  const version = graph.versions?.[name];
  const deprecation = graph.deprecations?.entries[name];
  const isHead = name === graph.head;
  const isInstalled = name === installed;
  const facts = [version ? `version ${version}` : undefined, isHead ? 'channel head' : undefined, isInstalled ? 'installed' : undefined, deprecation ? `deprecated: ${deprecation}` : undefined].filter(Boolean);
  const stroke = deprecation ? '#b91c1c' : isHead ? '#1d4ed8' : '#6b7280';
  const fill = isInstalled ? '#dbeafe' : deprecation ? '#fef2f2' : '#f9fafb';
  const badge = [isHead ? 'head' : '', isInstalled ? 'installed' : '', deprecation ? 'deprecated' : ''].filter(Boolean).join(' · ');
  return [
    `<g role="listitem" aria-label="${xml([name, ...facts].join(', '))}">`,
    `<title>${xml([name, ...facts].join('\n'))}</title>`,
    `<rect x="${x}" y="${y}" width="${width}" height="${node.height}" rx="6" fill="${fill}" stroke="${stroke}" stroke-width="${isHead ? 3 : 1.5}"/>`,
    `<text x="${x + 10}" y="${y + 18}" fill="#111827"${deprecation ? ' text-decoration="line-through"' : ''}>${xml(truncate(name))}</text>`,
    `<text x="${x + 10}" y="${y + 34}" fill="#4b5563" font-size="11">${xml([version ?? '', badge].filter(Boolean).join(' · '))}</text>`,
    '</g>',
  ].join('\n');
}

function renderLegend(y: number): string {
  const items = Object.entries(edgeStyles).map(([kind, style], index) => {
    const x = margin + index * 170;
    return `<line x1="${x}" y1="${y + 8}" x2="${x + 36}" y2="${y + 8}" stroke="${style.color}" stroke-width="1.5"${style.dash ? ` stroke-dasharray="${style.dash}"` : ''} marker-end="url(#arrow-${kind})"/><text x="${x + 44}" y="${y + 12}" fill="#374151">${xml(style.meaning)}</text>`;
  });
  return `<g aria-label="legend">${items.join('')}<text x="${margin}" y="${y + 34}" fill="#374151">thick border: channel head · blue fill: installed · red, struck through: deprecated</text></g>`;
}
