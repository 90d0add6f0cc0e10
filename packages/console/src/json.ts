import type { CachedObject } from '@olm/core';

/** A Kubernetes object read as plain JSON: the fields the console shows are read defensively. */
export type Json = CachedObject & Record<string, any>;
