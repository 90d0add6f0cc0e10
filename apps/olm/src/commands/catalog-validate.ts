import type { Command } from 'commander';
import { usageError } from '../cli-errors.js';
import { commandGroup } from './command-group.js';
import { addCatalogLimitOptions, catalogLimitsFromOptions, type CatalogLimitOptions } from './catalog-limit-options.js';

const outputFormats = ['text', 'json'] as const;


/** `olm catalog validate DIR [-o text|json]`: every `opm validate` rule; exit 0 valid, 1 invalid, 2 usage/IO. */
export function registerCatalogValidateCommand(program: Command): void {
  const command = commandGroup(program, 'catalog', 'work with file-based catalogs')
    .command('validate')
    .description('check a file-based catalog directory with every opm validate rule, listing all errors')
    .argument('<dir>', 'the catalog directory')
    .option('-o, --output <format>', 'text or json', 'text');
  addCatalogLimitOptions(command).action(async (dir: string, options: { output: string } & CatalogLimitOptions) => {
    if (!(outputFormats as readonly string[]).includes(options.output)) {
      throw usageError(`unknown output format "${options.output}" (use ${outputFormats.join(' or ')})`);
    }
    const { validateCatalog } = await import('@olm/registry');
    const report = await validateCatalog(dir, { limits: catalogLimitsFromOptions(options) });
    if (options.output === 'json') {
      // `passed` and `error.message` as opm's `-o json` (opm stops at the first conversion error,
      // or reports the whole model tree); `errors` lists every problem with its location and hint.
      const firstError = report.errors.find((error) => error.stage !== 'model');
      const upstreamMessage = firstError?.message ?? report.tree;
      const json = {
        passed: report.valid,
        ...(upstreamMessage === undefined ? {} : { error: { message: upstreamMessage } }),
        errors: report.errors,
        warnings: report.warnings,
        ...(report.tree === undefined ? {} : { tree: report.tree }),
        ...(report.counts === undefined ? {} : { counts: report.counts }),
      };
      process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
    } else if (report.valid) {
      const { packages = 0, channels = 0, bundles = 0 } = report.counts ?? {};
      process.stdout.write(`${dir} is valid: ${packages} packages, ${channels} channels, ${bundles} bundles\n`);
      if (report.warnings.length > 0) process.stdout.write(`${report.text}\n`);
    } else {
      process.stdout.write(`${report.text}\n`);
      process.stderr.write(`invalid catalog ${dir}: ${report.errors.length} error(s)\n`);
    }
    if (!report.valid) process.exitCode = 1;
  });
}
