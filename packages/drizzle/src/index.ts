export { createdBetween, decodeSheafId, withDecodedIds } from './decode.js';
export type { SheafIdMode, SheafIdOf, SheafIdOptions } from './id-mode.js';
export type { SyncIdSource } from './sync-ids.js';
