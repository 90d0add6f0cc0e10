import type { Command } from 'commander';
import { addOutputOption, type OutputFormat } from './shared-options.js';

export function registerCrdsCommand(program: Command): void {
  const command = program
    .command('crds')
    .description("print OLM's CustomResourceDefinitions (operators.coreos.com, and OLM v1's ClusterCatalog) as YAML, e.g. for `kubectl apply -f -`");
  addOutputOption(command, 'yaml (the default: one document per CRD) or json (a v1 List of them, as kubectl get -o json prints several objects)');
  command.action(async (options: { output?: OutputFormat }) => {
    const { crds, renderCrdsYaml } = await import('@olm/api');
    if (options.output === 'json') {
      process.stdout.write(`${JSON.stringify({ apiVersion: 'v1', kind: 'List', metadata: {}, items: crds }, null, 2)}\n`);
      return;
    }
    process.stdout.write(renderCrdsYaml());
  });
}
