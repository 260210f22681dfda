export { knexExecutor } from './executor.js';
export { extendKnex, type KnexModuleLike } from './extend.js';
export { type IdSource, type InsertWithIdsOptions, insertWithIds } from './insert.js';
export { installSheaf, uninstallSheaf } from './install.js';
export { type SheafIdColumnOptions, sheafId } from './sheaf-id.js';
