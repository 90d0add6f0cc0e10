import type { Plugin } from '@olm/core';
import { celPlugin } from '@olm/plugin-cel';
import { rbacPlugin } from '@olm/plugin-rbac';
import { satLogicSolverPlugin } from '@olm/plugin-sat-logic-solver';
import { registryPlugin } from '@olm/registry';
import { resolverPlugin } from '@olm/resolver';

/**
 * The composition root: the one list of plugins this distribution boots.
 * A platform team edits this list (or writes its own) to swap CEL support, the SAT backend
 * or the RBAC generator; no other package changes. Order does not matter: the kernel sorts
 * plugins by their dependencies.
 */
export const plugins: readonly Plugin[] = [registryPlugin, resolverPlugin, satLogicSolverPlugin, celPlugin, rbacPlugin];
