import type { Command } from 'commander';
import { usageError } from '../cli-errors.js';
import { commandGroup } from './command-group.js';
import { addCatalogLimitOptions, type CatalogLimitOptions } from './catalog-limit-options.js';
import { addRenderInputOptions, loadRenderInput, type RenderInputOptions } from './render-input.js';

const outputFormats = ['json', 'yaml'] as const;

/** `olm catalog render DIR|REF [-o json|yaml]`: the normalised FBC stream of a catalog or bundle, directory or image, as `opm render`. */
export function registerCatalogRenderCommand(program: Command): void {
  const command = commandGroup(program, 'catalog', 'work with file-based catalogs')
    .command('render')
    .description('print a catalog or bundle (a directory, or an image pulled from a registry) as the normalised FBC stream (opm render order)')
    .argument('<ref>', 'a catalog directory, a bundle directory, or a catalog or bundle image reference')
    .option('-o, --output <format>', 'json or yaml', 'json');
  addRenderInputOptions(addCatalogLimitOptions(command)).action(async (ref: string, options: { output: string } & CatalogLimitOptions & RenderInputOptions) => {
    if (!(outputFormats as readonly string[]).includes(options.output)) {
      throw usageError(`unknown output format "${options.output}" (use ${outputFormats.join(' or ')})`);
    }
    const { renderCatalog } = await import('@olm/registry');
    process.stdout.write(renderCatalog(await loadRenderInput(ref, options), options.output as 'json' | 'yaml'));
  });
}
