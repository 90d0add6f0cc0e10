import type { Command } from 'commander';
import type { Distribution } from '../distribution.js';
import { registerCatalogServeCommand } from './catalog-serve.js';
import { registerCrdsCommand } from './crds.js';
import { registerCatalogGraphCommand } from './catalog-graph.js';
import { registerCatalogRenderCommand } from './catalog-render.js';
import { registerCatalogValidateCommand } from './catalog-validate.js';
import { registerInstallCommand } from './install.js';
import { registerResolveCommand } from './resolve.js';
import { registerRunCommand } from './run.js';
import { registerStatusCommand } from './status.js';
import { registerUpCommand } from './up.js';
import { registerVersionCommand } from './version.js';

/** Every subcommand, one registrar per file. Add new commands here. */
export const commandRegistrars: ReadonlyArray<(program: Command, distribution: Distribution) => void> = [registerVersionCommand, registerUpCommand, registerResolveCommand, registerCatalogServeCommand, registerCatalogValidateCommand, registerCatalogRenderCommand, registerCatalogGraphCommand, registerCrdsCommand, registerRunCommand, registerInstallCommand, registerStatusCommand];
