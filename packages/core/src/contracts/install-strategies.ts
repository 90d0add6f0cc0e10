import { createKeyedExtensionPoint } from '../kernel/extension-point.js';

/** The result of checking an installed strategy's health. */
export interface InstallStatus {
  readonly healthy: boolean;
  /** Upstream's strategy error reason when unhealthy (`Waiting`, `ComponentMissing`, `Timeout`, …). */
  readonly reason?: string;
  readonly message?: string;
  /** True when retrying cannot help (upstream's unrecoverable strategy errors). */
  readonly unrecoverable?: boolean;
}

/** How a CSV's `spec.install` is carried out, keyed by `spec.install.strategy` (`deployment`). */
export interface InstallStrategy<Csv = unknown, Context = unknown> {
  readonly strategy: string;
  install(csv: Csv, context: Context): Promise<void>;
  checkHealth(csv: Csv, context: Context): Promise<InstallStatus>;
}

export const installStrategies = createKeyedExtensionPoint<InstallStrategy>({
  id: 'olm.installStrategies',
  description: 'CSV install strategies by strategy name',
  keyOf: (strategy) => strategy.strategy,
  hint: 'boot the CSV controller (@olm/controller-csv), which contributes the deployment strategy',
});
