export * from './jsonrpc/jsonrpc.types';
export * from './jsonrpc/jsonrpc.errors';
export * from './protocol/revisions';
export * from './protocol/protocol.types';
export * from './transport/transport.interface';
