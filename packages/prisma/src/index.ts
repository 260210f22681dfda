export { type SheafPrismaOptions, sheaf } from './extension.js';
export { bigintReplacer, idReviver, type JsonIds, toJsonSafe } from './json.js';
export type { SheafModelInfo, SheafModelMap } from './model-map.js';
export type { ModelStrategy, PrismaIdSource } from './strategy.js';
