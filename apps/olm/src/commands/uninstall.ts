import { createInterface } from 'node:readline/promises';
import type { Readable, Writable } from 'node:stream';
import type { KubeClient } from '@olm/controller-runtime';
import type { Command } from 'commander';
import { ExitCode, usageError } from '../cli-errors.js';
import { withClusterSession, type NamespacedCommandOptions } from '../cluster-session.js';
import { parseMilliseconds } from '../option-parsers.js';
import type { ObjectRef, UninstallPlan } from './uninstall-plan.js';
import { addClusterOptions, addNamespaceOption } from './shared-options.js';

export interface UninstallOptions extends NamespacedCommandOptions {
  readonly deleteCrds?: boolean;
  readonly deleteOperand?: boolean;
  readonly yes?: boolean;
  readonly timeout: number;
}

export interface UninstallIo {
  readonly out: (text: string) => void;
  /** Asks whether to go ahead; default: a prompt on the terminal, refused when stdin is not one. */
  readonly confirm: (question: string) => Promise<boolean>;
}

/** `[y/N]` on a terminal; `y` or `yes` goes ahead. */
export async function askOnTerminal(
  question: string,
  input: Readable & { isTTY?: boolean } = process.stdin,
  output: Writable = process.stdout,
  refusal = 'refusing to delete without confirmation: stdin is not a terminal; pass --yes to delete what is listed above',
): Promise<boolean> {
  if (input.isTTY !== true) throw usageError(refusal);
  const prompt = createInterface({ input, output });
  try {
    return /^(y|yes)$/i.test((await prompt.question(`${question} [y/N] `)).trim());
  } finally {
    prompt.close();
  }
}

/**
 * `olm uninstall PACKAGE`, as kubectl-operator's `uninstall`: prints exactly what goes, asks (unless
 * `--yes`), then deletes the Subscription, its InstallPlans, with `--delete-operand` the custom
 * resources of the CRDs the operator owns, the CSV (OLM removes its copies, Deployments and RBAC
 * with it), with `--delete-crds` those CRDs, and the OperatorGroup `olm install` made for it when
 * nothing else is subscribed there; it waits until each is gone. Last goes the `Operator`
 * `<package>.<namespace>` (as kubectl-operator deletes it), once no component carries its label: the
 * CRDs the uninstall keeps lose that label.
 */
export async function uninstallPackage(
  packageName: string,
  options: UninstallOptions,
  io: UninstallIo = { out: (text) => process.stdout.write(text), confirm: (question) => askOnTerminal(question) },
): Promise<number> {
  const [{ planUninstall, describeRef }, { removeOperator }] = await Promise.all([import('./uninstall-plan.js'), import('./uninstall-operator.js')]);
  return withClusterSession(options, 'operators', async ({ client, namespace }) => {
    const plan = await planUninstall(client, namespace, packageName);
    if (plan.operands.length > 0 && !options.deleteOperand) {
      throw usageError(
        `${plan.operands.length} custom resource${plan.operands.length === 1 ? '' : 's'} of the CRDs ${packageName} owns exist (${listRefs(plan.operands, describeRef)}): ` +
          'pass --delete-operand to delete them first (their operator still handles their finalizers), or delete them yourself',
      );
    }
    const steps: Array<{ readonly what: string; readonly refs: readonly ObjectRef[]; readonly deleted: boolean }> = [
      { what: 'the Subscription', refs: [plan.subscription], deleted: true },
      { what: 'its InstallPlans', refs: plan.installPlans, deleted: true },
      { what: 'the custom resources (--delete-operand)', refs: plan.operands, deleted: true },
      { what: 'the ClusterServiceVersion', refs: plan.csvs, deleted: true },
      { what: 'with the CSV, OLM and garbage collection remove', refs: plan.withCsvs, deleted: false },
      { what: 'its CustomResourceDefinitions (--delete-crds)', refs: options.deleteCrds ? plan.crds : [], deleted: true },
      { what: 'the OperatorGroup olm install made for it (nothing else is subscribed here)', refs: plan.operatorGroup ? [plan.operatorGroup] : [], deleted: true },
    ];
    // Last, once its components are gone: the Operator (kept CRDs lose its component label).
    const operatorStep = { what: 'the Operator listing its components (the CRDs kept lose its label)', refs: plan.operator ? [plan.operator] : [] };
    io.out(`olm uninstall ${packageName} -n ${namespace} deletes:\n`);
    for (const step of [...steps, operatorStep].filter((each) => each.refs.length > 0)) {
      io.out(`  ${step.what}:\n${step.refs.map((ref) => `    ${describeRef(ref)}\n`).join('')}`);
    }
    const kept = [
      ...(!options.deleteCrds ? plan.crds.map((crd) => `${describeRef(crd)} (pass --delete-crds to delete it)`) : []),
      ...plan.keptCrds.map((crd) => `CustomResourceDefinition ${crd.name} (${crd.reason})`),
    ];
    if (kept.length > 0) io.out(`  and keeps:\n${kept.map((line) => `    ${line}\n`).join('')}`);
    if (!options.yes && !(await io.confirm('Delete these objects?'))) {
      io.out('nothing deleted\n');
      return ExitCode.failed;
    }
    const deadline = Date.now() + options.timeout;
    for (const step of steps) {
      if (step.deleted) for (const ref of step.refs) await deleteIfPresent(client, ref);
      await waitUntilGone(client, step.refs, deadline, options.timeout, describeRef);
      for (const ref of step.deleted ? step.refs : []) io.out(`${describeRef(ref)} deleted\n`);
    }
    if (plan.operator) {
      const keptCrdNames = [...(options.deleteCrds ? [] : plan.crds.map((crd) => crd.name)), ...plan.keptCrds.map((crd) => crd.name)];
      const operator = plan.operator;
      await removeOperator(client, operator, keptCrdNames, (done) => pollUntil(done, deadline, options.timeout, () => `${describeRef(operator)} and its labelled components`));
      io.out(`${describeRef(operator)} deleted\n`);
    }
    io.out(`${packageName} uninstalled from ${namespace}\n`);
    return ExitCode.ok;
  });
}

function listRefs(refs: readonly ObjectRef[], describe: (ref: ObjectRef) => string): string {
  const shown = refs.slice(0, 5).map(describe).join(', ');
  return refs.length > 5 ? `${shown} and ${refs.length - 5} more` : shown;
}

async function deleteIfPresent(client: KubeClient, ref: ObjectRef): Promise<void> {
  const { isNotFound } = await import('@olm/controller-runtime');
  try {
    await client.delete(ref, { propagationPolicy: 'Background' });
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

/** Polls until every object is gone (finalizers ran, garbage collection caught up). */
async function waitUntilGone(client: KubeClient, refs: readonly ObjectRef[], deadline: number, timeout: number, describe: (ref: ObjectRef) => string): Promise<void> {
  let left = [...refs];
  await pollUntil(
    async () => {
      const present = await Promise.all(left.map(async (ref) => ((await client.find(ref)) ? ref : undefined)));
      left = present.filter((ref): ref is ObjectRef => ref !== undefined);
      return left.length === 0;
    },
    deadline,
    timeout,
    () => left.map(describe).join(', '),
  );
}

/** Polls `done` until it holds; past the deadline, says what is still awaited and that OLM must run. */
async function pollUntil(done: () => Promise<boolean>, deadline: number, timeout: number, awaited: () => string): Promise<void> {
  while (!(await done())) {
    if (Date.now() > deadline) {
      throw new Error(`still there after ${timeout} ms: ${awaited()}; their finalizers need OLM running (olm up or olm run): check it, then run olm uninstall again or wait`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export function registerUninstallCommand(program: Command): void {
  const command = program
    .command('uninstall')
    .argument('<package>', 'the package to uninstall (its Subscription\'s spec.name, or the Subscription\'s name)')
    .description('delete an operator: its Subscription, InstallPlans and CSV (with --delete-operand its custom resources, with --delete-crds its CRDs), after a summary and a confirmation');
  addClusterOptions(command);
  addNamespaceOption(command, 'namespace of the Subscription', 'operators');
  command
    .option('--delete-operand', 'first delete every custom resource of the CRDs the operator owns, in all namespaces')
    .option('--delete-crds', 'also delete the CRDs the operator owns (no other CSV owning them)')
    .option('-y, --yes', 'delete without asking')
    .option('--timeout <ms>', 'how long to wait for each step to be gone', parseMilliseconds, 120_000)
    .action(async (packageName: string, options: UninstallOptions) => {
      process.exitCode = await uninstallPackage(packageName, options);
    });
}
