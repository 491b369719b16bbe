// The one import point of msgpackr in this codebase (its environment is set first).
import './msgpack-env.js';

export { Packr, Unpackr, pack, unpack } from 'msgpackr';
