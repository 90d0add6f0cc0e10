import type { ReconcileResult } from '@olm/core';

/** What a step of a CSV sync answers: the sync's result when it ends the sync, or `proceed` to the next step. */
export type Step = ReconcileResult | 'continue';
export const proceed = 'continue' as const;
export const done: ReconcileResult = {};
