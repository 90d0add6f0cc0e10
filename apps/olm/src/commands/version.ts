import type { Command } from 'commander';
import { bootedPlugins, olmDistribution, type Distribution } from '../distribution.js';
import { printDocument } from '../output.js';
import { addOutputOption, type OutputFormat } from './shared-options.js';

/** What `olm version -o json|yaml` prints. */
export interface VersionDocument {
  readonly version: string;
  readonly node: string;
  readonly plugins: ReadonlyArray<{ readonly id: string; readonly version: string }>;
}

export function registerVersionCommand(program: Command, distribution: Distribution = olmDistribution): void {
  const command = program.command('version').description(`print the ${distribution.name} version and the plugins this distribution boots`);
  addOutputOption(command, 'print the version, the Node.js version and the plugins as json or yaml');
  command.action(async (options: { output?: OutputFormat }) => {
    const info: VersionDocument = {
      version: distribution.version,
      node: process.versions.node,
      plugins: bootedPlugins(distribution).map((plugin) => ({ id: plugin.id, version: plugin.version })),
    };
    if (options.output) {
      await printDocument(info, options.output);
      return;
    }
    process.stdout.write(`${distribution.name} ${info.version} (node ${info.node})\n`);
    for (const plugin of info.plugins) process.stdout.write(`  ${plugin.id} ${plugin.version}\n`);
  });
}
