import type { Command } from 'commander';
import { withClusterSession, type NamespacedCommandOptions } from '../cluster-session.js';
import { printDocument } from '../output.js';
import { findSubscription } from './install-plans.js';
import { addClusterOptions, addNamespaceOption, addOutputOption, type OutputFormat } from './shared-options.js';

import type { Explanation } from '@olm/console';

export type { Explanation, Finding } from '@olm/console';

/**
 * `olm explain PACKAGE|SUBSCRIPTION`: what is installed, what the catalog offers, and why this version and
 * not a newer one (a failing resolution, an approval, an unpack, a pin, the channel's head, a missing
 * upgrade edge, an unhealthy CSV), each with what to do. Reads only what `kubectl get` shows.
 */
export async function explain(name: string, options: ExplainOptions, out: (text: string) => void = (text) => process.stdout.write(text)): Promise<Explanation> {
  return withClusterSession(options, 'operators', async ({ client, namespace }) => {
    const { explainSubscription, formatExplanation } = await import('@olm/console');
    const explanation = await explainSubscription(client, await findSubscription(client, namespace, name));
    if (options.output) await printDocument(explanation, options.output, out);
    else out(formatExplanation(explanation));
    return explanation;
  });
}

export interface ExplainOptions extends NamespacedCommandOptions {
  readonly output?: OutputFormat;
}

export function registerExplainCommand(program: Command): void {
  const command = program
    .command('explain')
    .argument('<package|subscription>', 'the package (a Subscription\'s spec.name) or the Subscription\'s name')
    .description('say in plain words what is installed, what the catalog offers, why this version and not a newer one, and what to do');
  addClusterOptions(command);
  addNamespaceOption(command, 'namespace of the Subscription', 'operators');
  addOutputOption(command, 'print the explanation as json or yaml');
  command.action(async (name: string, options: ExplainOptions) => {
    await explain(name, options);
  });
}
