import type { CatalogSource } from './catalog-source.js';
import type { ClusterServiceVersion } from './cluster-service-version.js';
import type { InstallPlan } from './install-plan.js';
import type { OLMConfig } from './olm-config.js';
import type { Operator } from './operator.js';
import type { OperatorCondition } from './operator-condition.js';
import type { OperatorGroup } from './operator-group.js';
import type { Subscription } from './subscription.js';

/** Any operators.coreos.com object; narrow it on `kind`. */
export type OperatorsResource =
  | CatalogSource
  | ClusterServiceVersion
  | InstallPlan
  | OLMConfig
  | Operator
  | OperatorCondition
  | OperatorGroup
  | Subscription;
