/** The lists a client can be told changed (`notifications/<list>/list_changed`). */
export type McpListKind = 'tools' | 'resources' | 'prompts';
