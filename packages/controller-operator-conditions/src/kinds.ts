import { FieldManagers, Kinds } from '@olm/api';

/** The field manager of everything the OLM operator writes. */
export const fieldManager = FieldManagers.olmOperator;

export { Kinds };
