import type { Command } from 'commander';
import { addAuthoringLimitOptions, authoringLimitsFromOptions, type AuthoringLimitOptions } from './authoring-limit-options.js';
import { commandGroup } from './command-group.js';
import { addImageOutputOptions, outputImage, type ImageOutputOptions } from './image-options.js';

/** `olm bundle build DIR --tag REF | --oci-layout DIR`: the bundle image, without a container engine. */
export function registerBundleBuildCommand(program: Command): void {
  const command = commandGroup(program, 'bundle', 'author registry+v1 operator bundles')
    .command('build')
    .description('build the bundle image of a valid bundle directory (manifests/ and metadata/, its annotations as labels) and push it or write it as an OCI layout; no container engine needed')
    .argument('<dir>', 'the bundle directory');
  addAuthoringLimitOptions(addImageOutputOptions(command)).action(async (dir: string, options: ImageOutputOptions & AuthoringLimitOptions) => {
    const { buildBundleImage, formatBundleProblem } = await import('@olm/bundle-authoring');
    const { image, validation } = await buildBundleImage(dir, await authoringLimitsFromOptions(options));
    for (const problem of validation.problems) process.stderr.write(`${formatBundleProblem(problem)}\n`);
    await outputImage(image, options, 'bundle');
  });
}
