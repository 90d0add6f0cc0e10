export * from './json.js';
export * from './install-plan-approval.js';
export * from './subscription-explanation.js';
export * from './upgrade-changes.js';
export * from './subscribe.js';
