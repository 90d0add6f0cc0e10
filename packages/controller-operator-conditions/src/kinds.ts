import { FieldManagers, Kinds } from '@olm/api';
import type { ObjectKind } from '@olm/core';

/** The field manager of everything the OLM operator writes. */
export const fieldManager = FieldManagers.olmOperator;

export { Kinds };
