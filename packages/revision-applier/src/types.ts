import type { RenderedBundle } from '@olm/bundle-render';
import type { KubeClient } from '@olm/core';
import type { KubeClientOptions } from '@olm/controller-runtime';

/** The ClusterExtension whose bundle is applied: revisions and applied objects are recorded under its name and uid. */
export interface RevisionOwner {
  readonly name: string;
  readonly uid: string;
}

/** The ServiceAccount every apply acts as (`system:serviceaccount:<namespace>:<name>`). */
export interface ServiceAccountReference {
  readonly namespace: string;
  readonly name: string;
}

/** One permission the ServiceAccount lacks, as a SubjectAccessReview's resource attributes. */
export interface MissingPermission {
  readonly verb: string;
  /** The API group, `""` for the core group. */
  readonly group: string;
  readonly resource: string;
  /** Absent for cluster-scoped resources. */
  readonly namespace?: string;
  /** Absent when the verb is on the collection (create, list, watch). */
  readonly name?: string;
  /** For a non-resource rule a ClusterRole would grant (`/metrics`): group and resource are then `""`. */
  readonly nonResourceURL?: string;
}

/** The bundle a revision installs: what `installed()` reports back. */
export interface BundleIdentity {
  readonly name: string;
  readonly version: string;
  readonly image?: string;
}

export interface PreflightInput {
  readonly owner: RevisionOwner;
  readonly serviceAccount: ServiceAccountReference;
  readonly rendered: RenderedBundle;
}

export interface ApplyInput extends PreflightInput {
  readonly bundle: BundleIdentity;
}

export interface ApplyResult {
  /** The revision's number: 1 for the first install, one more for each changed bundle. */
  readonly revision: number;
  /** False while a phase waits (a CRD not yet Established, prunes pending): call `apply` again later. */
  readonly complete: boolean;
  /** What was done, or what is awaited, in a sentence for a condition message. */
  readonly message: string;
}

export interface InstalledRevision {
  readonly revision: number;
  readonly bundle: { readonly name: string; readonly version: string };
}

export interface UninstallResult {
  /** False while deletions are pending: call `uninstall` again later. */
  readonly complete: boolean;
  readonly message: string;
}

export interface RevisionApplierOptions {
  /** An admin client: reads and writes the revision records and asks SubjectAccessReviews. */
  readonly client: KubeClient;
  /**
   * The kubeconfig whose credentials impersonate the ServiceAccounts (they need `impersonate` on
   * `serviceaccounts`); default the admin client's.
   */
  readonly kubeConfig?: KubeClientOptions['kubeconfig'];
  /** The server-side apply field manager of every applied object. */
  readonly fieldManager: string;
  /** Where revision records (Secrets) are kept; default `olmv1-system`. */
  readonly revisionNamespace?: string;
  /** Revisions kept per owner, the installed one included; default 5. */
  readonly maxRevisions?: number;
  /** The largest revision record, compressed; default 1 MiB (a Secret's limit). */
  readonly maxRevisionBytes?: number;
  /** The most a record read back may decompress to; default 17 MiB (bundle-render's `maxRenderedBytes` and room). */
  readonly maxRevisionContentBytes?: number;
}

export interface RevisionApplier {
  /** Every permission the ServiceAccount lacks to apply `rendered`, deduplicated and sorted; `[]` when it may install. */
  preflight(input: PreflightInput): Promise<MissingPermission[]>;
  /** Applies `rendered` as the owner's next revision (or converges the current one when the bundle is unchanged). */
  apply(input: ApplyInput): Promise<ApplyResult>;
  /** The last applied revision of `owner`, or undefined when none. */
  installed(owner: RevisionOwner): Promise<InstalledRevision | undefined>;
  /** Deletes everything the owner's revisions applied, then the revision records. */
  uninstall(owner: RevisionOwner): Promise<UninstallResult>;
}
