import type { Command } from 'commander';
import { usageError } from '../cli-errors.js';
import { addAuthoringLimitOptions, authoringLimitsFromOptions, type AuthoringLimitOptions } from './authoring-limit-options.js';
import { commandGroup } from './command-group.js';

const outputFormats = ['text', 'json'] as const;

/** `olm bundle validate DIR [-o text|json]`: operator-sdk's default bundle rules; exit 0 valid, 1 invalid, 2 usage/IO. */
export function registerBundleValidateCommand(program: Command): void {
  const command = commandGroup(program, 'bundle', 'author registry+v1 operator bundles')
    .command('validate')
    .description("check a registry+v1 bundle directory (manifests/, metadata/annotations.yaml) with operator-sdk's default validators, listing every problem with its file and field")
    .argument('<dir>', 'the bundle directory')
    .option('-o, --output <format>', 'text or json', 'text');
  addAuthoringLimitOptions(command).action(async (dir: string, options: { output: string } & AuthoringLimitOptions) => {
    if (!(outputFormats as readonly string[]).includes(options.output)) {
      throw usageError(`unknown output format "${options.output}" (use ${outputFormats.join(' or ')})`);
    }
    const { validateBundle, formatBundleProblem } = await import('@olm/bundle-authoring');
    const { valid, problems } = await validateBundle(dir, await authoringLimitsFromOptions(options));
    const errors = problems.filter((problem) => problem.severity === 'error').length;
    if (options.output === 'json') {
      process.stdout.write(`${JSON.stringify({ passed: valid, problems }, null, 2)}\n`);
    } else {
      for (const problem of problems) process.stdout.write(`${formatBundleProblem(problem)}\n`);
      if (valid) process.stdout.write(`${dir} is a valid registry+v1 bundle${problems.length > 0 ? ` (${problems.length} warning(s))` : ''}\n`);
      else process.stderr.write(`invalid bundle ${dir}: ${errors} error(s)\n`);
    }
    if (!valid) process.exitCode = 1;
  });
}
