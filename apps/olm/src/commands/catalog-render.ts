import type { LoadProblem } from '@olm/registry';
import type { Command } from 'commander';
import { inputError, usageError } from '../cli-errors.js';
import { commandGroup } from './command-group.js';
import { addCatalogLimitOptions, catalogLimitsFromOptions, type CatalogLimitOptions } from './catalog-limit-options.js';

const outputFormats = ['json', 'yaml'] as const;

function describeProblems(problems: readonly LoadProblem[]): string {
  return problems.map((problem) => `  ${problem.file}${problem.line === undefined ? '' : `:${problem.line}`}: ${problem.message}`).join('\n');
}

/** `olm catalog render DIR [-o json|yaml]`: the normalised FBC stream, as `opm render`. */
export function registerCatalogRenderCommand(program: Command): void {
  const command = commandGroup(program, 'catalog', 'work with file-based catalogs')
    .command('render')
    .description('print a file-based catalog as the normalised FBC stream (opm render order)')
    .argument('<dir>', 'the catalog directory')
    .option('-o, --output <format>', 'json or yaml', 'json');
  addCatalogLimitOptions(command).action(async (dir: string, options: { output: string } & CatalogLimitOptions) => {
    if (!(outputFormats as readonly string[]).includes(options.output)) {
      throw usageError(`unknown output format "${options.output}" (use ${outputFormats.join(' or ')})`);
    }
    const { loadDeclarativeConfig, renderCatalog } = await import('@olm/registry');
    const config = await loadDeclarativeConfig(dir, { limits: catalogLimitsFromOptions(options) });
    if (config.errors.length > 0) {
      throw inputError(`cannot load catalog ${dir}: ${config.errors.length} problem(s)\n${describeProblems(config.errors)}`);
    }
    process.stdout.write(renderCatalog(config, options.output as 'json' | 'yaml'));
  });
}
