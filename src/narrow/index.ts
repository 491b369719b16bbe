// The narrow language: parse, resolve, then compile to a predicate or to SQL; plus search highlighting.
export { parseNarrow, narrowError, combinationError, checkChannelDmConflict, MAX_MESSAGE_ID, type ParseOptions } from './parse.js';
export { resolveNarrow, type NarrowResolver, type ResolveOptions, type WithConversation } from './resolve.js';
export { compilePredicate } from './predicate.js';
export { compileSql, FLAG_BITS, type NarrowColumns, type CompiledSql } from './sql.js';
export { highlight } from './highlight.js';
export { searchVectorSql, parseSearch, matchesSearch, type SearchQuery } from './search.js';
export * from './types.js';
