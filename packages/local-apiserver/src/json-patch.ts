import { StatusError, badRequest } from './errors.js';
import { deepClone, deepEqual, isJsonObject, ownField, setField } from './kube-object.js';
import { jsonSize } from './json-size.js';

/**
 * RFC 6902 JSON Patch (`application/json-patch+json`), with kube-apiserver's bounds: at most
 * 10,000 operations (413), and `copy` operations may add at most 3 MiB in all (kube-apiserver's
 * `JSONPatchMaxCopyBytes`, 422): a few copies that each double a value would otherwise grow the
 * document exponentially. Every other operation adds at most what the request body carries.
 */
export const maxJsonPatchOperations = 10_000;
export const jsonPatchMaxCopyBytes = 3 * 1024 * 1024;

interface Operation {
  op: string;
  path: string;
  value?: unknown;
  from?: string;
}

function patchError(message: string): StatusError {
  return new StatusError(422, 'Invalid', `the server rejected our request due to an error in our request: ${message}`);
}

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw patchError(`invalid JSON pointer "${pointer}"`);
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** A field of the document: own properties only, never one inherited from a prototype. */
function childOf(current: unknown, token: string): unknown {
  if (Array.isArray(current)) return /^\d+$/.test(token) ? current[Number(token)] : undefined;
  return isJsonObject(current) ? ownField(current, token) : undefined;
}

function parentOf(document: unknown, tokens: string[], pointer: string): { parent: unknown; last: string } {
  let current = document;
  for (const token of tokens.slice(0, -1)) {
    current = childOf(current, token);
    if (current === undefined) throw patchError(`doc is missing path: "${pointer}": missing value`);
  }
  return { parent: current, last: tokens[tokens.length - 1] ?? '' };
}

function arrayIndex(token: string, length: number, allowEnd: boolean, pointer: string): number {
  if (token === '-' && allowEnd) return length;
  if (!/^\d+$/.test(token)) throw patchError(`invalid array index "${token}" in "${pointer}"`);
  const index = Number(token);
  if (index > length || (!allowEnd && index === length)) throw patchError(`doc is missing path: "${pointer}": missing value`);
  return index;
}

function getValue(document: unknown, pointer: string): unknown {
  let current = document;
  for (const token of parsePointer(pointer)) {
    current = childOf(current, token);
    if (current === undefined) throw patchError(`doc is missing path: "${pointer}": missing value`);
  }
  return current;
}

function add(document: unknown, pointer: string, value: unknown): unknown {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return value;
  const { parent, last } = parentOf(document, tokens, pointer);
  if (Array.isArray(parent)) parent.splice(arrayIndex(last, parent.length, true, pointer), 0, value);
  else if (isJsonObject(parent)) setField(parent, last, value);
  else throw patchError(`doc is missing path: "${pointer}": missing value`);
  return document;
}

function remove(document: unknown, pointer: string): unknown {
  const tokens = parsePointer(pointer);
  // The whole document cannot be removed (nor moved into itself).
  if (tokens.length === 0) throw patchError(`doc is missing path: "${pointer}": missing value`);
  const { parent, last } = parentOf(document, tokens, pointer);
  if (Array.isArray(parent)) parent.splice(arrayIndex(last, parent.length, false, pointer), 1);
  else if (isJsonObject(parent) && Object.hasOwn(parent, last)) delete parent[last];
  else throw patchError(`doc is missing path: "${pointer}": missing value`);
  return document;
}

function tooManyOperations(count: number): StatusError {
  return new StatusError(
    413,
    'RequestEntityTooLarge',
    `Request entity too large: The allowed maximum operations in a JSON patch is ${maxJsonPatchOperations}, got ${count}; split the patch into several requests`,
  );
}

function copyTooLarge(accumulated: number): StatusError {
  return patchError(
    `Unable to complete the copy, the accumulated size increase of copy is ${accumulated}, exceeding the limit ${jsonPatchMaxCopyBytes}; split the patch into several requests`,
  );
}

export function applyJsonPatch(target: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch)) throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  if (patch.length > maxJsonPatchOperations) throw tooManyOperations(patch.length);
  let document = deepClone(target);
  let copiedBytes = 0;
  for (const raw of patch) {
    if (!isJsonObject(raw) || typeof raw['op'] !== 'string' || typeof raw['path'] !== 'string') {
      throw badRequest('the server rejected our request due to an error in our request: invalid JSON patch operation');
    }
    const operation = raw as unknown as Operation;
    switch (operation.op) {
      case 'add':
        document = add(document, operation.path, deepClone(operation.value));
        break;
      case 'remove':
        document = remove(document, operation.path);
        break;
      case 'replace':
        getValue(document, operation.path);
        document = operation.path === '' ? deepClone(operation.value) : add(remove(document, operation.path), operation.path, deepClone(operation.value));
        break;
      case 'move': {
        const value = getValue(document, operation.from ?? '');
        document = add(remove(document, operation.from ?? ''), operation.path, value);
        break;
      }
      case 'copy': {
        const value = getValue(document, operation.from ?? '');
        // Measured before cloning, and only up to the limit, so that refusing a bomb costs little.
        copiedBytes += jsonSize(value, jsonPatchMaxCopyBytes - copiedBytes + 1);
        if (copiedBytes > jsonPatchMaxCopyBytes) throw copyTooLarge(copiedBytes);
        document = add(document, operation.path, deepClone(value));
        break;
      }
      case 'test':
        if (!deepEqual(getValue(document, operation.path), operation.value)) {
          throw patchError(`testing value ${operation.path} failed: test failed`);
        }
        break;
      default:
        throw badRequest(`the server rejected our request due to an error in our request: unexpected operation "${operation.op}"`);
    }
  }
  return document;
}
