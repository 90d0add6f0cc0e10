import type { Step } from '../bundles/bundle-steps.js';

/** The Event reason upstream records on an InstallPlan when the API server warned while a step was applied. */
export const appliedWithWarningsReason = 'AppliedWithWarnings';

/** `involvedObject.fieldPath` of that Event: the step within the plan. */
export const stepFieldPath = (index: number): string => `status.plan[${index}]`;

/**
 * The message of that Event, worded as upstream's: how many warnings, the operator the step belongs
 * to (when it names one), the step's kind and name, then the warnings' texts.
 */
export function appliedWithWarningsMessage(step: Pick<Step, 'resolving' | 'resource'>, warnings: readonly string[]): string {
  const what = `(${step.resource.kind} ${JSON.stringify(step.resource.name)}): ${warnings.join(', ')}`;
  return step.resolving
    ? `${warnings.length} warning(s) generated during installation of operator ${JSON.stringify(step.resolving)} ${what}`
    : `${warnings.length} warning(s) generated during operator installation ${what}`;
}
