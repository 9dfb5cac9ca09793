/**
 * `@conduit-mcp/server/contracts`: the Jest suites every implementation of a store or bus meets (a Redis store, a
 * NATS bus…). Run one in a spec of your own; it uses the Jest globals of that run, so this entry needs `jest` and
 * `@types/jest` where it is used, unlike the package's main entry.
 */
export { sessionStoreContract } from './session-store.contract';
export type { SessionStoreCase } from './session-store.contract';
export { eventBusContract } from './event-bus.contract';
export type { EventBusCase } from './event-bus.contract';
export { taskStoreContract } from './task-store.contract';
export type { TaskStoreCase } from './task-store.contract';
export { eventStoreContract } from './event-store.contract';
export type { EventStoreBounds, EventStoreCase } from './event-store.contract';
