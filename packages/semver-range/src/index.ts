export * from './semver-error.js';
export * from './version.js';
export * from './range.js';
export * from './extension-range.js';
