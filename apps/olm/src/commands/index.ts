import type { Command } from 'commander';
import type { Distribution } from '../distribution.js';
import { registerApproveCommand } from './approve.js';
import { registerBundleBuildCommand } from './bundle-build.js';
import { registerBundleValidateCommand } from './bundle-validate.js';
import { registerCatalogBuildCommand } from './catalog-build.js';
import { registerCatalogServeCommand } from './catalog-serve.js';
import { registerConsoleCommand } from './console.js';
import { registerCrdsCommand } from './crds.js';
import { registerExplainCommand } from './explain.js';
import { registerHistoryCommand } from './history.js';
import { registerImageSignCommand } from './image-sign.js';
import { registerCatalogGraphCommand } from './catalog-graph.js';
import { registerCatalogRenderCommand } from './catalog-render.js';
import { registerCatalogTemplateCommand } from './catalog-template.js';
import { registerCatalogMirrorCommand } from './catalog-mirror.js';
import { registerCatalogValidateCommand } from './catalog-validate.js';
import { registerInstallCommand } from './install.js';
import { registerPackageServerCommand } from './packageserver.js';
import { registerResolveCommand } from './resolve.js';
import { registerRollbackCommand } from './rollback.js';
import { registerRunCommand } from './run.js';
import { registerStatusCommand } from './status.js';
import { registerUninstallCommand } from './uninstall.js';
import { registerUpCommand } from './up.js';
import { registerUpgradeCommand } from './upgrade.js';
import { registerVersionCommand } from './version.js';

/**
 * Every subcommand, one registrar per file. Add new commands here. A registrar only declares
 * options (commander and the app's small helpers); what an action needs beyond that (the
 * Kubernetes client, the controllers, the registry) it imports with `await import()` when it runs,
 * so that `olm --version`, `--help` and the offline commands start fast.
 */
export const commandRegistrars: ReadonlyArray<(program: Command, distribution: Distribution) => void> = [
  registerVersionCommand,
  registerUpCommand,
  registerResolveCommand,
  registerCatalogServeCommand,
  registerCatalogValidateCommand,
  registerCatalogRenderCommand,
  registerCatalogGraphCommand,
  registerCatalogBuildCommand,
  registerCatalogTemplateCommand,
  registerCatalogMirrorCommand,
  registerBundleValidateCommand,
  registerBundleBuildCommand,
  registerImageSignCommand,
  registerCrdsCommand,
  registerRunCommand,
  registerPackageServerCommand,
  registerInstallCommand,
  registerUpgradeCommand,
  registerApproveCommand,
  registerUninstallCommand,
  registerStatusCommand,
  registerExplainCommand,
  registerHistoryCommand,
  registerRollbackCommand,
  registerConsoleCommand,
];
