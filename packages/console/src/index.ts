export * from './json.js';
export * from './install-plan-approval.js';
export * from './subscription-explanation.js';
export * from './upgrade-changes.js';
export * from './subscribe.js';
export { startConsoleServer, defaultConsoleLimits, type ConsoleLimits, type ConsoleServer, type ConsoleServerOptions } from './console-server.js';
export { newConsoleToken, tokenCookie } from './request-guard.js';
