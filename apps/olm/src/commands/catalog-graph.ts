import type { Command } from 'commander';
import { inputError, usageError } from '../cli-errors.js';
import { commandGroup } from './command-group.js';
import { addCatalogLimitOptions, catalogLimitsFromOptions, type CatalogLimitOptions } from './catalog-limit-options.js';

const outputFormats = ['mermaid', 'dot', 'svg'] as const;

/** `olm catalog graph DIR --package P [--channel C] [-o mermaid|dot|svg]`: draw a package's update graph. */
export function registerCatalogGraphCommand(program: Command): void {
  const command = commandGroup(program, 'catalog', 'work with file-based catalogs')
    .command('graph')
    .description("draw a package's update graph (replaces, skips and skipRange edges) as Mermaid, DOT or an SVG picture")
    .argument('<dir>', 'the catalog directory')
    .requiredOption('--package <name>', 'the package to draw')
    .option('--channel <name>', 'only this channel (default: every channel of the package)')
    .option('-o, --output <format>', 'mermaid, dot or svg', 'mermaid')
    .option('--format <format>', 'the same as --output')
    .option('--installed <bundle>', 'with svg: mark this bundle as the installed one')
    .option('--from <bundle>', 'instead of drawing, print the upgrade path from this installed bundle (needs --channel)');
  addCatalogLimitOptions(command).action(async (dir: string, options: { package: string; channel?: string; output: string; format?: string; installed?: string; from?: string } & CatalogLimitOptions) => {
    const format = options.format ?? options.output;
    if (!(outputFormats as readonly string[]).includes(format)) {
      throw usageError(`unknown output format "${format}" (use ${outputFormats.join(', ')})`);
    }
    const { channelGraph, loadCatalog, renderDot, renderMermaid, renderSvg, upgradePath } = await import('@olm/registry');
    const catalog = await loadCatalog(dir, { allowInvalid: true, limits: catalogLimitsFromOptions(options) });
    const catalogPackage = catalog.package(options.package);
    if (catalogPackage === undefined) {
      throw inputError(`package "${options.package}" not found in ${dir} (packages: ${[...catalog.packages.keys()].join(', ')})`);
    }
    const channels = options.channel === undefined ? [...catalogPackage.channels.values()] : [catalogPackage.channels.get(options.channel)];
    if (channels.some((channel) => channel === undefined)) {
      throw inputError(`channel "${options.channel ?? ''}" not found in package "${options.package}" (channels: ${[...catalogPackage.channels.keys()].join(', ')})`);
    }
    if (options.from !== undefined) {
      if (options.channel === undefined) throw usageError('--from needs --channel: upgrades follow one channel');
      const version = catalogPackage.bundles.get(options.from)?.version;
      const hops = upgradePath(catalogPackage, options.channel, { name: options.from, ...(version === undefined ? {} : { version }) });
      if (hops.length === 0) process.stdout.write(`no upgrade from ${options.from} in channel ${options.channel}\n`);
      for (const hop of hops) process.stdout.write(`${hop.from} -> ${hop.to} (${hop.reason})\n`);
      return;
    }
    const graphs = channels.flatMap((channel) => (channel === undefined ? [] : [channelGraph(catalogPackage, channel)]));
    const renderers = { dot: renderDot, mermaid: renderMermaid, svg: (drawn: typeof graphs) => renderSvg(drawn, options.installed ? { installed: options.installed } : {}) };
    process.stdout.write(renderers[format as (typeof outputFormats)[number]](graphs));
  });
}
