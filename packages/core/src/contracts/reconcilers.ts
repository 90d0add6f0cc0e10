import { createKeyedExtensionPoint } from '../kernel/extension-point.js';

export interface ReconcileRequest {
  readonly namespace?: string;
  readonly name: string;
}

export interface ReconcileResult {
  /** Reconcile again after this many milliseconds, even if nothing changes. */
  readonly requeueAfter?: number;
}

/** A level-based reconciler, run by the controller runtime for the kind it watches. */
export interface Reconciler {
  /** Unique name, used in metrics and logs (`csv`, `subscription`). */
  readonly name: string;
  /** The watched kind, e.g. `{ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion' }`. */
  readonly for: { readonly apiVersion: string; readonly kind: string };
  reconcile(request: ReconcileRequest): Promise<ReconcileResult | void>;
}

export const reconcilers = createKeyedExtensionPoint<Reconciler>({
  id: 'olm.reconcilers',
  description: 'reconcilers by name',
  keyOf: (reconciler) => reconciler.name,
});
