import { checkPatchPath } from './body-checks.js';
import { ApiError, badRequest } from './errors.js';
import { deepClone, deepEqual, isJsonObject } from './kube-object.js';

/** RFC 6902 JSON Patch (`application/json-patch+json`). */
interface Operation {
  op: string;
  path: string;
  value?: unknown;
  from?: string;
}

function patchError(message: string): ApiError {
  return new ApiError(422, 'Invalid', `the server rejected our request due to an error in our request: ${message}`);
}

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw patchError(`invalid JSON pointer "${pointer}"`);
  const segments = pointer
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
  checkPatchPath(pointer, segments);
  return segments;
}

/** A field of the document: own properties only, never one inherited from a prototype. */
function childOf(current: unknown, token: string): unknown {
  if (Array.isArray(current)) return /^\d+$/.test(token) ? current[Number(token)] : undefined;
  return isJsonObject(current) && Object.hasOwn(current, token) ? current[token] : undefined;
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
  else if (isJsonObject(parent)) parent[last] = value;
  else throw patchError(`doc is missing path: "${pointer}": missing value`);
  return document;
}

function remove(document: unknown, pointer: string): unknown {
  const tokens = parsePointer(pointer);
  const { parent, last } = parentOf(document, tokens, pointer);
  if (Array.isArray(parent)) parent.splice(arrayIndex(last, parent.length, false, pointer), 1);
  else if (isJsonObject(parent) && Object.hasOwn(parent, last)) delete parent[last];
  else throw patchError(`doc is missing path: "${pointer}": missing value`);
  return document;
}

export function applyJsonPatch(target: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch)) throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  let document = deepClone(target);
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
      case 'copy':
        document = add(document, operation.path, deepClone(getValue(document, operation.from ?? '')));
        break;
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
