export * from './kernel/boot.js';
export * from './kernel/close-matches.js';
export * from './kernel/errors.js';
export * from './kernel/extension-point.js';
export * from './kernel/plugin.js';
export * from './contracts/index.js';
