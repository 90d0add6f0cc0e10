import type { KubeConfig } from '@kubernetes/client-node';
import type { WarningHandler } from './api-warnings.js';

export interface KubeClientOptions {
  /** A kubeconfig document (YAML or JSON), or a loaded client-node `KubeConfig`. */
  readonly kubeconfig: string | KubeConfig;
  /** The context to use instead of the kubeconfig's current one. */
  readonly context?: string;
  /** Per-request timeout in milliseconds (watches excepted). Default 30 000. */
  readonly requestTimeoutMs?: number;
  /**
   * Called with each API warning (`Warning` response header) of this client's requests, e.g.
   * unknown fields or deprecated APIs; without it warnings are dropped. See also `withWarningHandler`.
   */
  readonly onWarning?: WarningHandler;
}
