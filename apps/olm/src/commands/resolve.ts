import { boot, describeError } from '@olm/core';
import type { Command } from 'commander';
import { ExitCode, inputError, usageError } from '../cli-errors.js';
import { olmDistribution, type Distribution } from '../distribution.js';
import { loadPlugins } from '../lazy-plugin.js';
import { addResolutionOptions } from './shared-options.js';

const formats = ['json', 'yaml', 'text'] as const;

/**
 * `olm resolve -f scenario.yaml`: offline what-if resolution with this distribution's plugins (its
 * SAT backend and constraint evaluators). Exit 0 resolved, 1 unsatisfiable, 2 invalid input.
 */
export function registerResolveCommand(program: Command, distribution: Distribution = olmDistribution): void {
  const command = program
    .command('resolve')
    .description('resolve a namespace offline: which operators a scenario (catalogs, installed operators, subscriptions) ends up with, and why')
    .requiredOption('-f, --file <scenario>', 'scenario YAML: namespace, catalogs (path or inline content), installed, subscriptions')
    .option('-o, --output <format>', 'json, yaml or text', 'text')
    .option('--stats', 'include solver statistics (solver calls, variables, clauses) in json and yaml output');
  addResolutionOptions(command).action(async (options: { file: string; output: string; stats?: boolean; resolutionBudget?: number }) => {
    const format = options.output as (typeof formats)[number];
    if (!formats.includes(format)) throw usageError(`unknown output format "${options.output}"; use one of ${formats.join(', ')}`);
    const [{ loadCatalog }, { formatOutcomeText, loadScenario, resolverFromKernel, resolveToOutcome }, { stringify: toYaml }] = await Promise.all([
      import('@olm/registry'),
      import('@olm/resolver'),
      import('yaml'),
    ]);
    const input = await loadScenario(options.file, {
      loadCatalog: async (directory) => {
        try {
          return await loadCatalog(directory);
        } catch (error) {
          throw inputError(describeError(error), error);
        }
      },
    });
    const kernel = await boot({ plugins: await loadPlugins(distribution.resolutionPlugins) });
    try {
      const limits = options.resolutionBudget !== undefined ? { evaluationUnits: options.resolutionBudget } : {};
      const { outcome, resolution } = resolveToOutcome(resolverFromKernel(kernel, { limits }), input);
      const document = options.stats && resolution ? { ...outcome, stats: resolution.stats } : outcome;
      if (format === 'json') process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
      else if (format === 'yaml') process.stdout.write(toYaml(document));
      else process.stdout.write(formatOutcomeText(outcome, resolution));
      if (outcome.status === 'Unsatisfiable') process.exitCode = ExitCode.failed;
      if (outcome.status === 'Invalid') {
        process.stderr.write(`error: ${options.file}: ${outcome.message}\n`);
        process.exitCode = ExitCode.usage;
      }
    } finally {
      await kernel.stop();
    }
  });
}
